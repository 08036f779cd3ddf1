/**
 * Which organization and resource ids can name anything at all, so the router answers the others
 * without asking a store or a token verifier. PostgreSQL refuses U+0000 in text outright (an
 * error, which a store would have to translate), and a lone UTF-16 surrogate cannot be encoded as
 * UTF-8 (RFC 3629 §3): drivers replace it with U+FFFD, so `"\ud800"` would be looked up as `"\ufffd"`
 * — a different id. No organization or resource is ever stored under such an id, so a request
 * naming one is a 404 (or, before authentication, the same 404 as any unknown organization).
 * The audit trail (`auditedId`) asks it too, so it sits below both, beside `errors.ts`.
 */

// With the `u` flag a surrogate pair is one code point: only a lone surrogate is in \p{Cs}.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point (it cannot be stored in PostgreSQL text).
const IMPOSSIBLE = /[\u0000\p{Cs}]/u;

/**
 * Whether `id` could be an id a store holds: it has no U+0000 and no lone surrogate.
 *
 * @example isPossibleId("acme") // true
 * @example isPossibleId("a\u0000b") // false
 */
export function isPossibleId(id: string): boolean {
  return !IMPOSSIBLE.test(id);
}
