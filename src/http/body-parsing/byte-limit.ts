/**
 * Body limits as the router's options give them — a number of bytes or a string such as `"1mb"` —
 * read the way Express's body parser reads them (the `bytes` package: b, kb, mb, gb, tb and pb,
 * each 1024 times the last, case-insensitive, decimals allowed), so the router can compare a
 * request's `Content-Length` with the very limit the parser enforces.
 */

const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, pb: 1024 ** 5 };
const LIMIT = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb|pb)?\s*$/i;

/**
 * The limit in bytes, or an `Error` naming the option for a value the body parser would not
 * understand — it would then apply no limit at all, so the router refuses to start instead.
 *
 * @example parseByteLimit("bodyLimit", "1mb") // 1048576
 */
export function parseByteLimit(name: string, limit: number | string): number {
  if (typeof limit === "number") {
    if (Number.isFinite(limit) && limit >= 0) return Math.floor(limit);
  } else {
    const match = LIMIT.exec(limit);
    if (match) return Math.floor(Number(match[1]) * (UNITS[(match[2] ?? "b").toLowerCase()] ?? 1));
  }
  throw new Error(`scimkit: ${name} must be a number of bytes or a size such as "1mb"; got ${JSON.stringify(limit)}.`);
}
