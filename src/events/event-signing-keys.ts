/**
 * Each organization's key for signing Security Event Tokens (RFC 8417 §2.3 with RFC 7515), made on
 * first use and kept in a `SigningKeyRepository`, and the public half as a JWKS (RFC 7517 §5) for
 * receivers to verify with. The cryptography is `jose`'s.
 */
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { v7 as uuidv7 } from "uuid";
import type { SigningKeyRepository } from "./event-receiver-store.js";

/** The algorithm of every SET signature: ECDSA P-256 with SHA-256 (RFC 7518 §3.4): short signatures, fast to check. */
export const SECURITY_EVENT_ALGORITHM = "ES256";

/** A private key as `jose` imports it (a WebCrypto key). */
export type PrivateSigningKey = Exclude<Awaited<ReturnType<typeof importJWK>>, Uint8Array>;

/** A key ready to sign with. */
export interface SigningKey {
  /** The `kid` header of the SETs it signs. */
  readonly kid: string;
  /** The private key, for `jose`. */
  readonly key: PrivateSigningKey;
}

/** The organizations' signing keys. */
export interface EventSigningKeys {
  /** The key that signs the SETs of `orgId`; made and stored on first use. */
  signingKey(orgId: string): Promise<SigningKey>;
  /** The JWKS of `orgId`: what a receiver fetches to verify its SETs (made on first use too). */
  jwks(orgId: string): Promise<{ readonly keys: readonly JWK[] }>;
}

/**
 * The signing keys kept in `repository`, cached in this process once read.
 *
 * @example const keys = eventSigningKeys(sqlSigningKeyRepository(store.db));
 */
export function eventSigningKeys(repository: SigningKeyRepository): EventSigningKeys {
  const cache = new Map<string, Promise<{ readonly signing: SigningKey; readonly publicJwk: JWK }>>();

  const load = async (orgId: string): Promise<{ readonly signing: SigningKey; readonly publicJwk: JWK }> => {
    let stored = await repository.get(orgId);
    if (!stored) {
      const pair = await generateKeyPair(SECURITY_EVENT_ALGORITHM, { extractable: true });
      const kid = uuidv7();
      const privateJwk = { ...(await exportJWK(pair.privateKey)), kid, alg: SECURITY_EVENT_ALGORITHM };
      const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg: SECURITY_EVENT_ALGORITHM, use: "sig" };
      // Another process may have stored one meanwhile: the one kept wins, in every process.
      stored = await repository.addIfAbsent({
        orgId,
        kid,
        privateJwk: JSON.stringify(privateJwk),
        publicJwk: JSON.stringify(publicJwk),
        createdAt: new Date().toISOString(),
      });
    }
    const key = await importJWK(JSON.parse(stored.privateJwk) as JWK, SECURITY_EVENT_ALGORITHM);
    if (key instanceof Uint8Array) throw new Error("scimkit: a signing key imported as raw bytes");
    return { signing: { kid: stored.kid, key }, publicJwk: JSON.parse(stored.publicJwk) as JWK };
  };

  const entry = (orgId: string) => {
    let found = cache.get(orgId);
    if (!found) {
      found = load(orgId);
      // A failed load (database down) is tried again next time, not remembered.
      found.catch(() => cache.delete(orgId));
      cache.set(orgId, found);
    }
    return found;
  };

  return {
    async signingKey(orgId) {
      return (await entry(orgId)).signing;
    },
    async jwks(orgId) {
      return { keys: [(await entry(orgId)).publicJwk] };
    },
  };
}
