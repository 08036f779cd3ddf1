/**
 * The persistence contract of the hashed token store: where token records and their SHA-256
 * digests live. scimkit ships `memoryTokenRepository()`; a SQL repository implements the same
 * interface. Repositories never see a token, only its digest.
 */
import type { TokenRecord } from "./token-record.js";

/**
 * A token record as a repository holds it: the public record and the digest of the current
 * secret. The secret ids of the public record are derived from the digests, never stored.
 */
export interface StoredToken extends Omit<TokenRecord, "secretId" | "previousSecretId"> {
  /** `hashToken(token)`: 64 lower-case hex characters, unique across all organizations. */
  readonly hash: string;
  /**
   * Digest of the secret the last rotation replaced, kept only when that rotation gave a grace
   * period: it verifies until `previousSecretValidUntil`, and never after. Unique across all
   * organizations like `hash`.
   */
  readonly previousHash?: string;
}

/** The new secret of a rotated token. */
export interface HashReplacement {
  /** Digest of the new secret. */
  readonly hash: string;
  /** `TokenRecord.prefix` of the new secret. */
  readonly prefix: string;
  /** ISO 8601 time of the rotation, stored as `rotatedAt`. */
  readonly rotatedAt: string;
  /** `TokenRecord.expiresAt` of the new secret; absent: it does not expire. */
  readonly expiresAt?: string;
  /**
   * When present, the current digest becomes `previousHash` and verifies until this ISO 8601
   * time (the rotation's grace period); when absent, the current digest is dropped and any
   * earlier previous digest with it. Either way at most one previous digest is kept.
   */
  readonly previousSecretValidUntil?: string;
}

/**
 * Storage for token records, scoped by organization. Every method resolves once the change is
 * visible to every later call, from any process sharing the storage: the token store keeps no
 * cache, so a rotation or revocation is effective on the very next verify.
 *
 * @example
 * const tokens = createTokenStore({ repository: memoryTokenRepository() });
 */
export interface TokenRepository {
  /**
   * The token of organization `orgId` whose current digest — or previous digest, see
   * `StoredToken.previousHash` — is `hash`, or `undefined`; the caller decides whether a previous
   * digest is still within its grace period. A token of
   * another organization with that digest is `undefined` too: the lookup is scoped so that a
   * foreign token and an unknown one take the same path. Look up by an index on the digest;
   * equality on a uniformly random digest leaks nothing useful through timing.
   *
   * @example SELECT … FROM scimkit_tokens WHERE org_id = $1 AND (hash = $2 OR previous_hash = $2)
   */
  findByHash(orgId: string, hash: string): Promise<StoredToken | undefined>;
  /** The tokens of `orgId`, oldest first (by `createdAt`, then `id`); empty when it has none. */
  listByOrg(orgId: string): Promise<readonly StoredToken[]>;
  /**
   * Stores a new token. Rejects when `id` is already used in the organization or `hash` anywhere
   * (a unique constraint; with 256-bit random tokens it never happens by chance).
   */
  insert(token: StoredToken): Promise<void>;
  /**
   * Rotation: replaces the digest and prefix of token `id` of `orgId`, sets `rotatedAt` and
   * `expiresAt`, clears `lastUsedAt` (the new secret has not been used yet) and keeps the old
   * digest as `previousHash` only when `replacement.previousSecretValidUntil` is given, in one
   * atomic write. Without a grace period the old digest stops matching as soon as the promise
   * resolves. `undefined` when there is no such token.
   */
  replaceHash(orgId: string, id: string, replacement: HashReplacement): Promise<StoredToken | undefined>;
  /**
   * Records that the token of `orgId` whose current digest is `hash` verified at `lastUsedAt`.
   * Keyed by digest, so a use of an old secret racing a rotation never marks the new one. Does
   * nothing when no token matches (it was revoked or rotated meanwhile).
   */
  markUsed(orgId: string, hash: string, lastUsedAt: string): Promise<void>;
  /**
   * Ends the grace period of token `id` of `orgId` now: drops its previous digest and
   * `previousSecretValidUntil` in one write, so the replaced secret stops matching once the
   * promise resolves (the customer confirmed the identity provider uses the new one). The token
   * as it is afterwards (unchanged when it had no previous digest); `undefined` when there is no
   * such token. Optional: a repository without it cannot end a grace early, and
   * `TokenStore.endRotationGrace` then says so.
   */
  dropPreviousHash?(orgId: string, id: string): Promise<StoredToken | undefined>;
  /** Deletes token `id` of `orgId`. False when there was no such token. */
  delete(orgId: string, id: string): Promise<boolean>;
  /** Deletes every token of `orgId` and says how many there were. */
  deleteByOrg(orgId: string): Promise<number>;
}
