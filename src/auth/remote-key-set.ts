/**
 * The key set of an authorization server, fetched from its `jwks_uri` and kept through its
 * outages: `jwtVerifier`'s source of keys for `jwksUrl`. jose's own remote set drops nothing but
 * keeps nothing either — once its cache has aged, or before the first fetch succeeded, every
 * request during an outage fetches again and fails. This one fetches once for everyone waiting
 * (single flight), keeps verifying with the last key set it got for as long as the server cannot
 * give a newer one, and after a failed fetch waits — twice as long after each further failure,
 * up to a cap — before fetching again, whatever the requests do. Parsing and key matching are
 * jose's (`createLocalJWKSet`).
 */
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { TokenVerificationUnavailableError } from "./token-verification-unavailable-error.js";
import { readBoundedText } from "../read-bounded-text.js";

/** A key set is a few keys: a few kilobytes. Anything far bigger is not one, and is not read whole. */
const MAX_KEY_SET_BYTES = 512 * 1024;
/** The wait after the first failed fetch; it doubles with each further failure. */
const FIRST_RETRY_MS = 1000;

/** Options of `remoteKeySet`. */
export interface RemoteKeySetOptions {
  /** Milliseconds a fetched key set is used before it is fetched again (when the server answers). */
  readonly cacheMaxAgeMs: number;
  /** Least milliseconds between two fetches caused by a token naming a key the set lacks. */
  readonly cooldownMs: number;
  /** Milliseconds to wait for the server's answer before the fetch counts as failed. */
  readonly timeoutMs: number;
  /** The longest wait between two fetches while the server keeps failing. */
  readonly retryMaxMs: number;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** Told of each failed fetch (once per fetch, never per request), for the operator. */
  readonly onError: (error: unknown) => void;
}

/** The last key set that loaded and when it did. */
interface Loaded {
  readonly getKey: JWTVerifyGetKey;
  readonly at: number;
}

async function fetchKeySet(url: URL, timeoutMs: number): Promise<JSONWebKeySet> {
  // Redirects are not followed: the key set is where the operator said it is.
  const response = await fetch(url, {
    headers: { accept: "application/json" },
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`the server answered HTTP ${response.status}`);
  }
  return JSON.parse(await readBoundedText(response, MAX_KEY_SET_BYTES, "the key set")) as JSONWebKeySet;
}

/**
 * A `JWTVerifyGetKey` over the key set at `url`. It rejects with jose's `JWKSNoMatchingKey` when
 * a token names a key the (current) set lacks, and with `TokenVerificationUnavailableError` when
 * it has no key set to look in — none ever loaded — or the token names a key the last good set
 * lacks while the server is failing, so the request is answered 503 rather than refused.
 *
 * @example
 * const getKey = remoteKeySet(new URL("https://login.example.com/jwks"), { cacheMaxAgeMs: 600_000, cooldownMs: 30_000, timeoutMs: 5000, retryMaxMs: 60_000, now: Date.now, onError: console.error });
 */
export function remoteKeySet(url: URL, options: RemoteKeySetOptions): JWTVerifyGetKey {
  const { now } = options;
  let loaded: Loaded | undefined;
  let pending: Promise<void> | undefined;
  let lastFetchAt = Number.NEGATIVE_INFINITY;
  let failures = 0;
  let retryAt = Number.NEGATIVE_INFINITY;

  /** Fetches the key set unless a fetch is under way (then joins it) or the backoff forbids one. */
  const refresh = (): Promise<void> => {
    if (pending !== undefined) return pending;
    if (now() < retryAt) return Promise.resolve();
    lastFetchAt = now();
    pending = fetchKeySet(url, options.timeoutMs)
      .then((keySet) => {
        // jose checks the shape (JWKSInvalid) before anything is kept.
        loaded = { getKey: createLocalJWKSet(keySet), at: now() };
        failures = 0;
        retryAt = Number.NEGATIVE_INFINITY;
      })
      .catch((error: unknown) => {
        failures += 1;
        retryAt = now() + Math.min(options.retryMaxMs, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 30));
        options.onError(new Error(`the key set could not be loaded from ${url.href}: ${String(error)}`, { cause: error }));
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  const unavailable = (): TokenVerificationUnavailableError =>
    new TokenVerificationUnavailableError(
      "The authorization server's keys could not be fetched; the access token cannot be checked for now.",
      (retryAt - now()) / 1000,
    );

  return async (header, token) => {
    if (loaded === undefined || now() - loaded.at >= options.cacheMaxAgeMs) await refresh();
    const keys = loaded;
    if (keys === undefined) throw unavailable();
    try {
      return await keys.getKey(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A key the set lacks: the server may have rotated it in; ask again, at most once per cooldown.
      if (now() - lastFetchAt >= options.cooldownMs) await refresh();
      if (loaded !== keys && loaded !== undefined) return loaded.getKey(header, token);
      // The key may be new, but the server cannot say: not the token's fault.
      if (failures > 0) throw unavailable();
      throw error;
    }
  };
}
