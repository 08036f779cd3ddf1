/**
 * Each organization's key for signing Security Event Tokens (RFC 8417 §2.3 with RFC 7515), made on
 * first use and kept in a `SigningKeyRepository`, and the public halves as a JWKS (RFC 7517 §5) for
 * receivers to verify with. A rotation makes a new key the one that signs; the JWKS keeps serving
 * the keys it replaced for a retention period, so a SET signed before the rotation — delivered
 * late, retried, or checked against a JWKS a receiver cached — still verifies. The cryptography
 * is `jose`'s.
 */
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { v7 as uuidv7 } from "uuid";
import type { RetiredSigningKey, SigningKeyRepository, StoredSigningKey } from "./event-receiver-store.js";

/** The algorithm of every SET signature: ECDSA P-256 with SHA-256 (RFC 7518 §3.4): short signatures, fast to check. */
export const SECURITY_EVENT_ALGORITHM = "ES256";

/** How long the JWKS keeps a replaced key by default: 7 days. */
export const DEFAULT_KEY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** A private key as `jose` imports it (a WebCrypto key). */
export type PrivateSigningKey = Exclude<Awaited<ReturnType<typeof importJWK>>, Uint8Array>;

/** A key ready to sign with. */
export interface SigningKey {
  /** The `kid` header of the SETs it signs. */
  readonly kid: string;
  /** The private key, for `jose`. */
  readonly key: PrivateSigningKey;
}

/** Options of `eventSigningKeys`. */
export interface EventSigningKeysOptions {
  /**
   * How long, in milliseconds, the JWKS keeps serving a key after a rotation replaced it. Longer
   * than the oldest SET a receiver may still have to verify (a receiver down for days, a poll
   * receiver that comes back late) and than any JWKS cache. Default 7 days.
   */
  readonly retentionMs?: number;
  /**
   * How long, in milliseconds, this process uses the key it read before reading it again: the
   * most time a rotation made by another process takes to reach this one (its SETs are signed
   * with the replaced key meanwhile, which the JWKS still serves). Default 60,000.
   */
  readonly refreshMs?: number;
  /**
   * Most replaced keys the JWKS keeps, newest first, whatever their retention: a rotation beyond it
   * drops the oldest (a SET it signed no longer verifies), so rotating in a loop cannot grow the
   * JWKS every receiver fetches. Default 3.
   */
  readonly maxRetiredKeys?: number;
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/** The default of `EventSigningKeysOptions.maxRetiredKeys`. */
export const DEFAULT_MAX_RETIRED_KEYS = 3;

/** The organizations' signing keys. */
export interface EventSigningKeys {
  /** The key that signs the SETs of `orgId`; made and stored on first use. */
  signingKey(orgId: string): Promise<SigningKey>;
  /**
   * The JWKS of `orgId`: what a receiver fetches to verify its SETs — the signing key first, then
   * the keys it replaced within their retention, newest first. Empty before the organization has
   * a key (its first receiver or SET makes one), and for an organization that does not exist: the
   * answer alone does not tell an outsider which.
   */
  jwks(orgId: string): Promise<{ readonly keys: readonly JWK[] }>;
  /**
   * Makes a new key the one that signs the SETs of `orgId`, and resolves with it. The replaced key
   * stays in the JWKS for `retentionMs`; keys past their retention leave it. When two processes
   * rotate the same key at once, one new key is kept and both resolve with it.
   */
  rotate(orgId: string): Promise<SigningKey>;
}

/** A key as this process uses it. */
interface Loaded {
  /** The key that signs. */
  readonly signing: SigningKey;
  /** Its public half, for the JWKS. */
  readonly publicJwk: JWK;
  /** The keys it replaced, as stored: retention is applied when the JWKS is served. */
  readonly retired: readonly RetiredSigningKey[];
  /** When it was read, on the clock of the options. */
  readonly loadedAt: number;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new Error(`scimkit: ${name} must be a number of milliseconds ≥ 0; got ${String(value)}.`);
  return value;
}

/** A new key pair for `orgId`, as kept. */
async function newKey(orgId: string, createdAt: string, retired: readonly RetiredSigningKey[]): Promise<StoredSigningKey> {
  const pair = await generateKeyPair(SECURITY_EVENT_ALGORITHM, { extractable: true });
  const kid = uuidv7();
  const privateJwk = { ...(await exportJWK(pair.privateKey)), kid, alg: SECURITY_EVENT_ALGORITHM };
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg: SECURITY_EVENT_ALGORITHM, use: "sig" };
  return {
    orgId,
    kid,
    privateJwk: JSON.stringify(privateJwk),
    publicJwk: JSON.stringify(publicJwk),
    createdAt,
    ...(retired.length > 0 ? { retired } : {}),
  };
}

/**
 * The signing keys kept in `repository`, cached in this process for `refreshMs` once read.
 *
 * @example const keys = eventSigningKeys(sqlSigningKeyRepository(store.db), { retentionMs: 14 * 86_400_000 });
 */
export function eventSigningKeys(repository: SigningKeyRepository, options: EventSigningKeysOptions = {}): EventSigningKeys {
  const retentionMs = positive("retentionMs", options.retentionMs, DEFAULT_KEY_RETENTION_MS);
  const refreshMs = positive("refreshMs", options.refreshMs, 60_000);
  const maxRetiredKeys = positive("maxRetiredKeys", options.maxRetiredKeys, DEFAULT_MAX_RETIRED_KEYS);
  const now = options.now ?? Date.now;
  const cache = new Map<string, Promise<Loaded>>();

  /** The replaced keys still within their retention at `at`, at most `maxRetiredKeys` of them. */
  const kept = (retired: readonly RetiredSigningKey[], at: number): RetiredSigningKey[] =>
    retired.filter((key) => Date.parse(key.retiredAt) + retentionMs > at).slice(0, maxRetiredKeys);

  const use = async (stored: StoredSigningKey): Promise<Loaded> => {
    const key = await importJWK(JSON.parse(stored.privateJwk) as JWK, SECURITY_EVENT_ALGORITHM);
    if (key instanceof Uint8Array) throw new Error("scimkit: a signing key imported as raw bytes");
    return {
      signing: { kid: stored.kid, key },
      publicJwk: JSON.parse(stored.publicJwk) as JWK,
      retired: stored.retired ?? [],
      loadedAt: now(),
    };
  };

  const stored = async (orgId: string): Promise<StoredSigningKey> => {
    const found = await repository.get(orgId);
    if (found) return found;
    // Another process may have stored one meanwhile: the one kept wins, in every process.
    return repository.addIfAbsent(await newKey(orgId, new Date(now()).toISOString(), []));
  };

  const remember = (orgId: string, loading: Promise<Loaded>): Promise<Loaded> => {
    // A failed load (database down) is tried again next time, not remembered.
    loading.catch(() => {
      if (cache.get(orgId) === loading) cache.delete(orgId);
    });
    cache.set(orgId, loading);
    return loading;
  };

  const entry = async (orgId: string): Promise<Loaded> => {
    const found = cache.get(orgId);
    if (found) {
      const loaded = await found;
      // Read again now and then: another process may have rotated the key.
      if (now() - loaded.loadedAt < refreshMs) return loaded;
      // Another caller started reading again meanwhile (or rotated): share that.
      const latest = cache.get(orgId);
      if (latest && latest !== found) return latest;
    }
    return remember(orgId, stored(orgId).then(use));
  };

  return {
    async signingKey(orgId) {
      return (await entry(orgId)).signing;
    },
    async jwks(orgId) {
      // Never made here: an unauthenticated reader must not make a key for every id it can think of.
      if (!cache.has(orgId) && (await repository.get(orgId)) === undefined) return { keys: [] };
      const loaded = await entry(orgId);
      const retired = kept(loaded.retired, now()).map((key) => JSON.parse(key.publicJwk) as JWK);
      return { keys: [loaded.publicJwk, ...retired] };
    },
    async rotate(orgId) {
      const current = await stored(orgId);
      const at = now();
      // The replaced key first (newest first), then those still within their retention: the
      // expired ones are dropped here, in the same write.
      const retired = kept(
        [{ kid: current.kid, publicJwk: current.publicJwk, retiredAt: new Date(at).toISOString() }, ...(current.retired ?? [])],
        at,
      );
      const next = await newKey(orgId, new Date(at).toISOString(), retired);
      // Of two rotations of `current` at once, one stores its key and the other gets that one.
      const winner = (await repository.replaceIfCurrent(current.kid, next)) ?? (await repository.addIfAbsent(next));
      return (await remember(orgId, use(winner))).signing;
    },
  };
}
