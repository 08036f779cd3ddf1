/**
 * The reference token store (architecture §3, spec §5): the operator issues a token per organization,
 * can regenerate it at any time (the old secret stops working at once) and revoke it. Tokens are
 * 256-bit random values kept only as SHA-256 digests and compared in constant time.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { hashToken, sameTokenHash, secretIdOf, unmatchableTokenHash } from "./hash-token.js";
import { memoryTokenRepository } from "./memory-token-repository.js";
import type { StoredToken, TokenRepository } from "./token-repository.js";
import type { TokenRecord } from "./token-record.js";
import type { Principal, TokenVerifier, VerifyContext } from "./token-verifier.js";

/** Random bytes in a token's secret part: 256 bits, 43 base64url characters. */
const SECRET_BYTES = 32;
/** Characters of the secret part shown in `TokenRecord.prefix`: 24 of its 256 bits. */
const VISIBLE_SECRET_CHARS = 4;
/** The default prefix, so scanners and people recognise a leaked scimkit token. */
const DEFAULT_TOKEN_PREFIX = "scimkit_";
/** Prefixes are pasted into `Authorization` headers and config files: keep them plain. */
const TOKEN_PREFIX_PATTERN = /^[A-Za-z0-9_-]{0,32}$/;
/**
 * Longest grace period of a rotation: seven days. Long enough to reconfigure an identity
 * provider over a weekend; a leaked secret must not outlive its rotation by more.
 */
export const MAX_ROTATION_GRACE_SECONDS = 7 * 24 * 60 * 60;

/** Options of `createTokenStore`. */
export interface TokenStoreOptions {
  /** Where records and digests live. Default: `memoryTokenRepository()`, lost on restart. */
  readonly repository?: TokenRepository;
  /**
   * Text put before the random part of every token; letters, digits, `_` and `-`, at most 32.
   * Default `"scimkit_"`.
   */
  readonly tokenPrefix?: string;
  /**
   * Whether `verify` records `lastUsedAt`. Default true. Each recording is one repository write,
   * so it is throttled by `lastUsedResolutionMs`.
   */
  readonly trackLastUsed?: boolean;
  /**
   * Least time between two `lastUsedAt` writes for one token: a busy identity provider costs one
   * write per interval, not one per request. Default 60,000 (a minute); 0 writes on every verify.
   */
  readonly lastUsedResolutionMs?: number;
  /** The clock. Default `() => new Date()`. */
  readonly now?: () => Date;
}

/** Options of `TokenStore.issue`. */
export interface IssueTokenOptions {
  /** A free-text name for the credential, shown in `list`, e.g. `"Entra production"`. */
  readonly label?: string;
  /**
   * When the token stops verifying (an ISO 8601 time, or a `Date`), checked on every request;
   * absent: it does not expire. Must be a valid time.
   */
  readonly expiresAt?: string | Date;
}

/** Options of `TokenStore.rotate`. */
export interface RotateTokenOptions {
  /**
   * Seconds during which the replaced secret still verifies beside the new one, so an identity
   * provider can be moved to the new secret without failed requests; an integer from 0 to
   * `MAX_ROTATION_GRACE_SECONDS` (7 days). Default 0: the old secret fails at once. The old
   * secret never outlives its own `expiresAt`.
   */
  readonly graceSeconds?: number;
  /**
   * When the new secret stops verifying; absent: it does not expire (an expiry belongs to a
   * secret, so a rotation does not carry the old one over).
   */
  readonly expiresAt?: string | Date;
}

/** A freshly issued or rotated token: the only time its secret is available. */
export interface IssuedToken {
  /** The bearer token to hand to the customer, once, over a secure channel. Never stored. */
  readonly token: string;
  /** Its public record. */
  readonly record: TokenRecord;
}

/**
 * Issues, lists, rotates and revokes the tokens of each organization, and verifies them: pass it
 * as the router's `auth`. Every change is effective on the next `verify` (there is no cache).
 */
export interface TokenStore extends TokenVerifier {
  /**
   * Issues a new token for `orgId`, alongside any it already has (so a customer can move to the
   * new one before the old is revoked). The secret is in the result and nowhere else, ever.
   */
  issue(orgId: string, options?: IssueTokenOptions): Promise<IssuedToken>;
  /** The records of the tokens of `orgId`, oldest first: no secret, no digest. */
  list(orgId: string): Promise<TokenRecord[]>;
  /**
   * Regenerates the secret of token `tokenId` of `orgId` (spec §5.4), keeping its id, label and
   * `createdAt`. The old secret fails from the moment the promise resolves, or once
   * `options.graceSeconds` have passed. `undefined` when the organization has no such token.
   */
  rotate(orgId: string, tokenId: string, options?: RotateTokenOptions): Promise<IssuedToken | undefined>;
  /**
   * Ends the grace period of a rotation of token `tokenId` of `orgId` now: the replaced secret
   * fails from the moment the promise resolves, the new one goes on (the customer confirmed the
   * identity provider uses it). The record afterwards; `undefined` when the organization has no
   * such token. Optional for other implementations; this store's needs a repository with
   * `dropPreviousHash`, and rejects otherwise.
   */
  endRotationGrace?(orgId: string, tokenId: string): Promise<TokenRecord | undefined>;
  /** Deletes token `tokenId` of `orgId`; it fails on the next verify. False when there was none. */
  revoke(orgId: string, tokenId: string): Promise<boolean>;
  /** Deletes every token of `orgId` (e.g. when the organization is removed); says how many. */
  revokeAll(orgId: string): Promise<number>;
}

function publicRecord(stored: StoredToken, at: Date): TokenRecord {
  // Built field by field rather than by deleting `hash`, so a repository's extra columns never leak.
  const record: { -readonly [K in keyof TokenRecord]: TokenRecord[K] } = {
    id: stored.id,
    orgId: stored.orgId,
    prefix: stored.prefix,
    secretId: secretIdOf(stored.hash),
    createdAt: stored.createdAt,
  };
  if (stored.label !== undefined) record.label = stored.label;
  if (stored.rotatedAt !== undefined) record.rotatedAt = stored.rotatedAt;
  if (stored.lastUsedAt !== undefined) record.lastUsedAt = stored.lastUsedAt;
  if (stored.expiresAt !== undefined) record.expiresAt = stored.expiresAt;
  // An ended grace period is history, not something the operator needs to act on.
  if (stored.previousSecretValidUntil !== undefined && isAfter(stored.previousSecretValidUntil, at)) {
    record.previousSecretValidUntil = stored.previousSecretValidUntil;
    if (stored.previousHash !== undefined) record.previousSecretId = secretIdOf(stored.previousHash);
  }
  return record;
}

function principalOf(stored: StoredToken): Principal {
  return stored.label === undefined
    ? { orgId: stored.orgId, tokenId: stored.id }
    : { orgId: stored.orgId, tokenId: stored.id, label: stored.label };
}

/** Whether ISO time `iso` is strictly after `at`. */
function isAfter(iso: string, at: Date): boolean {
  return Date.parse(iso) > at.getTime();
}

/** `expiresAt` as an ISO 8601 string in UTC, or a thrown error naming the option. */
function expiryOf(expiresAt: string | Date | undefined): string | undefined {
  if (expiresAt === undefined) return undefined;
  const time = expiresAt instanceof Date ? expiresAt.getTime() : typeof expiresAt === "string" ? Date.parse(expiresAt) : Number.NaN;
  if (!Number.isFinite(time)) throw new Error("token store: expiresAt must be a valid ISO 8601 time or Date");
  return new Date(time).toISOString();
}

function graceSecondsOf(graceSeconds: number | undefined): number {
  const seconds = graceSeconds ?? 0;
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_ROTATION_GRACE_SECONDS) {
    throw new Error(`token store: graceSeconds must be an integer from 0 to ${MAX_ROTATION_GRACE_SECONDS} (7 days)`);
  }
  return seconds;
}

function requireOrgId(orgId: string): void {
  if (typeof orgId !== "string" || orgId.length === 0) throw new Error("token store: orgId must be a non-empty string");
}

/**
 * Creates a token store over `options.repository` (in memory by default).
 *
 * @example
 * const tokens = createTokenStore();
 * const { token, record } = await tokens.issue("acme", { label: "Entra" });
 * // deliver `token` to acme once; keep `record.id` to rotate or revoke it
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: tokens }));
 */
export function createTokenStore(options: TokenStoreOptions = {}): TokenStore {
  const repository = options.repository ?? memoryTokenRepository();
  const tokenPrefix = options.tokenPrefix ?? DEFAULT_TOKEN_PREFIX;
  const trackLastUsed = options.trackLastUsed ?? true;
  const resolutionMs = options.lastUsedResolutionMs ?? 60_000;
  const now = options.now ?? (() => new Date());
  if (!TOKEN_PREFIX_PATTERN.test(tokenPrefix)) {
    throw new Error("token store: tokenPrefix may hold only letters, digits, '_' and '-', at most 32 of them");
  }
  if (!(resolutionMs >= 0)) throw new Error("token store: lastUsedResolutionMs must be a number ≥ 0");

  function newSecret(): { readonly token: string; readonly hash: string; readonly prefix: string } {
    const token = tokenPrefix + randomBytes(SECRET_BYTES).toString("base64url");
    return { token, hash: hashToken(token), prefix: token.slice(0, tokenPrefix.length + VISIBLE_SECRET_CHARS) };
  }

  function usedRecently(lastUsedAt: string | undefined, at: Date): boolean {
    if (lastUsedAt === undefined) return false;
    return at.getTime() - Date.parse(lastUsedAt) < resolutionMs;
  }

  // Uses being written, by organization and digest. `verify` never waits for the write: on a
  // SQLite file it would queue behind whatever write transaction holds the one writer (a large
  // PATCH of another organization), and a read must never wait for a write (issue 27, point 14).
  // `list` waits for its organization's, so it shows a use as soon as `verify` has answered.
  const recording = new Map<string, Promise<void>>();

  function recordUse(orgId: string, hash: string, at: string): void {
    const key = `${orgId}\u0000${hash}`;
    if (recording.has(key)) return;
    const written = repository
      .markUsed(orgId, hash, at)
      // `lastUsedAt` is informational: a failed write costs the request nothing, and the next
      // use after the resolution tries again.
      .catch(() => undefined)
      .finally(() => recording.delete(key));
    recording.set(key, written);
  }

  async function usesWritten(orgId: string): Promise<void> {
    const prefix = `${orgId}\u0000`;
    await Promise.all([...recording].filter(([key]) => key.startsWith(prefix)).map(([, written]) => written));
  }

  return {
    async issue(orgId, issueOptions = {}) {
      requireOrgId(orgId);
      const expiresAt = expiryOf(issueOptions.expiresAt);
      const { token, hash, prefix } = newSecret();
      const at = now();
      const stored: StoredToken = {
        id: randomUUID(),
        orgId,
        ...(issueOptions.label === undefined ? {} : { label: issueOptions.label }),
        prefix,
        createdAt: at.toISOString(),
        ...(expiresAt === undefined ? {} : { expiresAt }),
        hash,
      };
      await repository.insert(stored);
      return { token, record: publicRecord(stored, at) };
    },

    async list(orgId) {
      await usesWritten(orgId);
      const at = now();
      return (await repository.listByOrg(orgId)).map((stored) => publicRecord(stored, at));
    },

    async rotate(orgId, tokenId, rotateOptions = {}) {
      const graceSeconds = graceSecondsOf(rotateOptions.graceSeconds);
      const expiresAt = expiryOf(rotateOptions.expiresAt);
      const at = now();
      let previousSecretValidUntil: string | undefined;
      if (graceSeconds > 0) {
        const current = (await repository.listByOrg(orgId)).find((candidate) => candidate.id === tokenId);
        if (current === undefined) return undefined;
        const graceEnd = at.getTime() + graceSeconds * 1000;
        // The old secret never outlives its own expiry: a grace period extends nothing.
        const end = current.expiresAt === undefined ? graceEnd : Math.min(graceEnd, Date.parse(current.expiresAt));
        if (end > at.getTime()) previousSecretValidUntil = new Date(end).toISOString();
      }
      const { token, hash, prefix } = newSecret();
      const stored = await repository.replaceHash(orgId, tokenId, {
        hash,
        prefix,
        rotatedAt: at.toISOString(),
        ...(expiresAt === undefined ? {} : { expiresAt }),
        ...(previousSecretValidUntil === undefined ? {} : { previousSecretValidUntil }),
      });
      return stored === undefined ? undefined : { token, record: publicRecord(stored, at) };
    },

    async endRotationGrace(orgId, tokenId) {
      if (repository.dropPreviousHash === undefined) {
        throw new Error("token store: this repository cannot end a rotation's grace early (it has no dropPreviousHash)");
      }
      const stored = await repository.dropPreviousHash(orgId, tokenId);
      return stored === undefined ? undefined : publicRecord(stored, now());
    },
    revoke(orgId, tokenId) {
      return repository.delete(orgId, tokenId);
    },

    revokeAll(orgId) {
      return repository.deleteByOrg(orgId);
    },

    async verify(token: string, orgId: string, _request: VerifyContext): Promise<Principal | null> {
      const hash = hashToken(token);
      // The repository scopes the lookup by organization, so another organization's token is
      // simply not found; the comparison runs whether or not something was, so unknown, revoked
      // and foreign tokens all do the same work before answering null.
      const found = await repository.findByHash(orgId, hash);
      // Both digests are compared every time, so which one matched (if any) costs the same.
      const current = sameTokenHash(found?.hash ?? unmatchableTokenHash, hash);
      const previous = sameTokenHash(found?.previousHash ?? unmatchableTokenHash, hash);
      // The orgId check does not trust the repository's scoping: a custom one may get it wrong.
      if (found === undefined || found.orgId !== orgId || (!current && !previous)) return null;
      const at = now();
      // RFC 6750 §3.1: an expired token is `invalid_token`, a 401 like any other.
      if (current && found.expiresAt !== undefined && !isAfter(found.expiresAt, at)) return null;
      // A replaced secret verifies only inside the grace period its rotation gave it.
      if (!current && (found.previousSecretValidUntil === undefined || !isAfter(found.previousSecretValidUntil, at))) return null;
      // lastUsedAt is the current secret's: uses of the replaced one within its grace leave it alone.
      if (current && trackLastUsed && !usedRecently(found.lastUsedAt, at)) recordUse(orgId, hash, at.toISOString());
      return principalOf(found);
    },
  };
}
