/**
 * The one place tokens are hashed and hash digests compared. Tokens are stored, configured in
 * memory and looked up only as SHA-256 digests: a leaked database or heap dump holds no usable
 * credential, and a 256-bit random token needs no slow password hash.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Bytes in a SHA-256 digest. */
const DIGEST_BYTES = 32;

/**
 * The SHA-256 digest of `token` (its UTF-8 bytes) as 64 lower-case hex characters: the form
 * repositories store and look tokens up by.
 *
 * @example hashToken("scimkit_…") // "9f86d081884c7d65…"
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Distinguishes secret ids from every other use of SHA-256 over a token digest. */
const SECRET_ID_CONTEXT = "scimkit secret id\n";

/**
 * A non-secret id of the secret whose digest is `hash` (as `hashToken` made it): 128 bits of
 * SHA-256 over the digest, base64url. It names one secret — a rotation gives a new one — and,
 * being one-way over a 256-bit random secret, tells nothing of it; the OAuth access tokens carry
 * it to say which secret obtained them.
 *
 * @example secretIdOf(hashToken(token)) // "q0n3…" (22 characters)
 */
export function secretIdOf(hash: string): string {
  return createHash("sha256")
    .update(SECRET_ID_CONTEXT + hash, "utf8")
    .digest()
    .subarray(0, 16)
    .toString("base64url");
}

/**
 * Whether two hex SHA-256 digests are equal, compared with `crypto.timingSafeEqual` so the time
 * taken does not depend on where they differ. A value that is not a well-formed digest equals
 * nothing (and does not throw, as `timingSafeEqual` would on a length mismatch).
 */
export function sameTokenHash(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  if (left.length !== DIGEST_BYTES || right.length !== DIGEST_BYTES) return false;
  return timingSafeEqual(left, right);
}

/**
 * A well-formed digest that no token hashes to (it is random, not the hash of anything), for
 * verifiers to compare against when they have nothing to compare: an unknown token or an
 * unknown organization then costs the same work as a wrong one.
 */
export const unmatchableTokenHash: string = randomBytes(DIGEST_BYTES).toString("hex");
