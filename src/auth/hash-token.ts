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
