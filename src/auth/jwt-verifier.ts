/**
 * A `TokenVerifier` for JWT access tokens of an authorization server (issue 20 item 4): the
 * signature checked against the server's JWKS, the issuer, audience, expiry (with a clock skew),
 * the algorithm against an allow-list, and one claim naming the organization the token acts for.
 * All of the cryptography is jose's (panva/jose); this file decides only what to accept.
 */
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from "jose";
import { remoteKeySet } from "./remote-key-set.js";
import { TokenRefusedError } from "./token-refused-error.js";
import { isTokenVerificationUnavailableError } from "./token-verification-unavailable-error.js";
import type { Principal, TokenVerifier, VerifyContext } from "./token-verifier.js";

/** The algorithms accepted when `algorithms` is not given: the asymmetric ones every issuer offers. */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = ["RS256", "ES256", "EdDSA"];

/** Symmetric (HMAC) algorithms: only with a configured `secret`, never against a public JWKS. */
const HMAC_ALGORITHMS: readonly string[] = ["HS256", "HS384", "HS512"];

/** Options of `jwtVerifier`. Exactly one of `jwksUrl`, `jwks` and `secret` is required. */
export interface JwtVerifierOptions {
  /**
   * Where the authorization server publishes its keys (its `jwks_uri`). Fetched on first use,
   * cached for `jwksCacheMaxAgeSeconds`, and fetched again when a token names a key id (`kid`)
   * the cached set lacks — at most once per `jwksCooldownSeconds`, so the server's key rotation
   * is picked up and a stream of made-up key ids cannot make us hammer it. Use `https:`.
   *
   * During the server's outage the last key set fetched keeps verifying tokens, however old; one
   * fetch at a time is made for all requests, and after a failed one the next waits 1 s, then
   * twice as long each time, up to `jwksRetryMaxSeconds`. A token that cannot be checked meanwhile
   * (no key set was ever fetched, or it names a key the last one lacks) is answered 503 with
   * `Retry-After`, never 500; each failed fetch is reported once through `onKeySetError`.
   */
  readonly jwksUrl?: string | URL;
  /** A fixed key set (public keys only), for keys configured rather than fetched. */
  readonly jwks?: JSONWebKeySet;
  /**
   * A shared secret for HMAC-signed tokens (HS256/384/512). Only with a secret are HS algorithms
   * accepted; the default `algorithms` are then `["HS256"]`. At least 32 bytes.
   */
  readonly secret?: string | Uint8Array;
  /** The expected `iss` claim (RFC 7519 §4.1.1), or several accepted ones. Required. */
  readonly issuer: string | readonly string[];
  /**
   * The expected `aud` claim (RFC 7519 §4.1.3): the identifier this service has at the
   * authorization server, or several. Required: without it a token the server issued for any
   * other service would be accepted here.
   */
  readonly audience: string | readonly string[];
  /**
   * Which organization a token acts for: the name of a top-level string claim (e.g. `"org_id"`,
   * `"tid"`), or a function from the verified claims to the organization id (`undefined`: none).
   * A token is accepted only on the path of that organization.
   */
  readonly organizationClaim: string | ((claims: JWTPayload) => string | undefined);
  /**
   * The `alg` values accepted. Default `DEFAULT_JWT_ALGORITHMS` (RS256, ES256, EdDSA), or
   * `["HS256"]` with a `secret`. `none` is never accepted; HS algorithms only with a `secret`.
   */
  readonly algorithms?: readonly string[];
  /** Seconds of clock difference allowed on `exp`, `nbf` and `iat`. Default 60. */
  readonly clockToleranceSeconds?: number;
  /** When given, tokens whose `iat` is older than this many seconds are refused (and `iat` is required). */
  readonly maxTokenAgeSeconds?: number;
  /**
   * Scope(s) a token must carry, in its `scope` claim (space-separated, RFC 8693 §4.2 / RFC 9068
   * §2.2.3) or its `scp` claim (a string or an array, as Okta and Entra send it); a valid token
   * without them is refused with 403 `insufficient_scope`. Default: none required.
   */
  readonly requiredScope?: string | readonly string[];
  /** When given, the `typ` header the tokens must carry, e.g. `"at+jwt"` (RFC 9068 §2.1). */
  readonly type?: string;
  /** With `jwksUrl`: least seconds between two fetches caused by an unknown `kid`. Default 30. */
  readonly jwksCooldownSeconds?: number;
  /** With `jwksUrl`: seconds a fetched key set is used before it is fetched again. Default 600. */
  readonly jwksCacheMaxAgeSeconds?: number;
  /** With `jwksUrl`: seconds to wait for the key set before the fetch counts as failed. Default 5. */
  readonly jwksTimeoutSeconds?: number;
  /** With `jwksUrl`: the longest wait between two fetches while the server keeps failing. Default 60. */
  readonly jwksRetryMaxSeconds?: number;
  /** With `jwksUrl`: told of each failed fetch of the key set, for the operator. Default `console.error`. */
  readonly onKeySetError?: (error: unknown) => void;
  /** The clock. Default `() => new Date()`. */
  readonly now?: () => Date;
}

/** What a refused token is told. Each depends on the token alone, never on the organization asked about. */
const REFUSAL = {
  invalid: "The access token is invalid.",
  expired: "The access token has expired.",
  notYetValid: "The access token is not valid yet.",
  tooOld: "The access token was issued too long ago.",
  issuer: "The access token was issued by an issuer this service does not trust.",
  audience: "The access token was issued for another audience.",
} as const;

function invalidToken(description: string): TokenRefusedError {
  return new TokenRefusedError("invalid_token", description);
}

/**
 * The refusal for a jose error caused by the token, or undefined for an unexpected failure of
 * ours: those are thrown on, a 500 reported through `onError`. (A key set that cannot be fetched
 * is neither: the key source answers it with `TokenVerificationUnavailableError`.)
 */
function refusalOf(error: unknown): TokenRefusedError | undefined {
  // jose reports a token older than maxTokenAge as expired too, naming the iat claim.
  if (error instanceof errors.JWTExpired) return invalidToken(error.claim === "iat" ? REFUSAL.tooOld : REFUSAL.expired);
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "iss") return invalidToken(REFUSAL.issuer);
    if (error.claim === "aud") return invalidToken(REFUSAL.audience);
    if (error.claim === "nbf") return invalidToken(REFUSAL.notYetValid);
    return invalidToken(REFUSAL.invalid);
  }
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JOSEAlgNotAllowed ||
    error instanceof errors.JOSENotSupported ||
    // An unknown `kid` (after the refetch the cooldown allows), or several keys none of which verified.
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return invalidToken(REFUSAL.invalid);
  }
  return undefined;
}

function listOf(value: string | readonly string[]): string[] {
  return typeof value === "string" ? [value] : [...value];
}

function secondsOption(name: string, value: number | undefined, fallback: number): number {
  const seconds = value ?? fallback;
  if (!(Number.isFinite(seconds) && seconds >= 0)) throw new Error(`jwtVerifier: ${name} must be a number of seconds ≥ 0`);
  return seconds;
}

/** The scopes a token carries, from `scope` (space-separated) and `scp` (string or array). */
function scopesOf(claims: JWTPayload): Set<string> {
  const scopes = new Set<string>();
  const add = (value: unknown): void => {
    if (typeof value === "string") for (const scope of value.split(" ")) if (scope !== "") scopes.add(scope);
    if (Array.isArray(value)) for (const item of value) if (typeof item === "string") add(item);
  };
  add(claims["scope"]);
  add(claims["scp"]);
  return scopes;
}

/** The id of the client the token was issued to (RFC 9068 §2.2 `client_id`, OIDC `azp`), or its subject. */
function clientOf(claims: JWTPayload): string | undefined {
  for (const name of ["client_id", "azp", "sub"]) {
    const value = claims[name];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

type KeySource = { readonly kind: "keys"; readonly getKey: JWTVerifyGetKey } | { readonly kind: "secret"; readonly secret: Uint8Array };

function keySourceOf(options: JwtVerifierOptions): KeySource {
  const given = [options.jwksUrl, options.jwks, options.secret].filter((source) => source !== undefined).length;
  if (given !== 1) throw new Error("jwtVerifier: give exactly one of jwksUrl, jwks and secret");
  if (options.jwksUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(options.jwksUrl);
    } catch {
      throw new Error(`jwtVerifier: jwksUrl ${JSON.stringify(String(options.jwksUrl))} is not a URL`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("jwtVerifier: jwksUrl must be an https: URL");
    const now = options.now ?? (() => new Date());
    const getKey = remoteKeySet(url, {
      cooldownMs: secondsOption("jwksCooldownSeconds", options.jwksCooldownSeconds, 30) * 1000,
      cacheMaxAgeMs: secondsOption("jwksCacheMaxAgeSeconds", options.jwksCacheMaxAgeSeconds, 600) * 1000,
      timeoutMs: Math.round(secondsOption("jwksTimeoutSeconds", options.jwksTimeoutSeconds, 5) * 1000),
      retryMaxMs: secondsOption("jwksRetryMaxSeconds", options.jwksRetryMaxSeconds, 60) * 1000,
      now: () => now().getTime(),
      onError: options.onKeySetError ?? ((error: unknown) => console.error("scimkit jwtVerifier:", error)),
    });
    return { kind: "keys", getKey };
  }
  if (options.jwks !== undefined) {
    for (const key of options.jwks.keys ?? []) {
      // A private or symmetric key in a key set is a configuration mistake that would leak or be misused.
      if ("d" in key || "k" in key) throw new Error("jwtVerifier: jwks must hold public keys only");
    }
    return { kind: "keys", getKey: createLocalJWKSet(options.jwks) };
  }
  const secret = typeof options.secret === "string" ? new TextEncoder().encode(options.secret) : (options.secret ?? new Uint8Array());
  // RFC 7518 §3.2: an HS256 key must be at least as long as the hash output.
  if (secret.byteLength < 32) throw new Error("jwtVerifier: secret must be at least 32 bytes");
  return { kind: "secret", secret };
}

function algorithmsOf(options: JwtVerifierOptions, source: KeySource): string[] {
  const algorithms =
    options.algorithms === undefined ? (source.kind === "secret" ? ["HS256"] : [...DEFAULT_JWT_ALGORITHMS]) : [...options.algorithms];
  if (algorithms.length === 0) throw new Error("jwtVerifier: algorithms must name at least one algorithm");
  for (const algorithm of algorithms) {
    // RFC 8725 §3.1: `none` is never acceptable; HMAC keys are secrets, never a published key set.
    if (algorithm.toLowerCase() === "none") throw new Error('jwtVerifier: the algorithm "none" is never accepted');
    const hmac = HMAC_ALGORITHMS.includes(algorithm);
    if (hmac && source.kind !== "secret") throw new Error(`jwtVerifier: ${algorithm} needs a secret, not a key set`);
    if (!hmac && source.kind === "secret")
      throw new Error(`jwtVerifier: with a secret only HS256, HS384 and HS512 are accepted, not ${algorithm}`);
  }
  return algorithms;
}

/**
 * A `TokenVerifier` accepting JWTs signed by an authorization server: on organization `orgId`, a
 * token verifies when its signature checks against the server's keys with an allowed algorithm,
 * `iss` and `aud` are as configured, `exp` has not passed (it is required) and `nbf` has (each
 * with `clockToleranceSeconds` of skew), and the organization claim names `orgId`.
 *
 * A refused token rejects with a `TokenRefusedError` (`invalid_token`, 401, with a description of
 * what was wrong with the token; `insufficient_scope`, 403, when `requiredScope` is missing), so
 * the client is told why (RFC 6750 §3.1). A token for another organization is refused exactly as
 * a malformed one — same code, same description — after the same verification, so the answer
 * says nothing about the organization asked about.
 *
 * The key set failing to load (the server down, a timeout, a response that is not a key set) is
 * not the token's fault: tokens keep verifying against the last key set that loaded, and a token
 * that cannot be checked without a newer one rejects with a `TokenVerificationUnavailableError`
 * (503 with `Retry-After`), while each failed fetch is reported once through `onKeySetError`, so
 * an outage of the authorization server shows in the operator's reports instead of looking like
 * every client's mistake — and does not make every request hammer the server.
 *
 * `Principal.tokenId` is the client the token was issued to (`client_id`, `azp` or `sub`).
 * Throws at construction for options that would accept forged tokens (`none`, HMAC with a
 * public key set) or that are not what they say.
 *
 * @example
 * const auth = jwtVerifier({
 *   jwksUrl: "https://login.example.com/.well-known/jwks.json",
 *   issuer: "https://login.example.com/",
 *   audience: "https://scim.example.com",
 *   organizationClaim: "org_id",
 *   requiredScope: "scim",
 * });
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth }));
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const source = keySourceOf(options);
  const algorithms = algorithmsOf(options, source);
  const issuer = listOf(options.issuer);
  const audience = listOf(options.audience);
  if (issuer.length === 0 || issuer.some((value) => value === "")) throw new Error("jwtVerifier: issuer is required");
  if (audience.length === 0 || audience.some((value) => value === "")) throw new Error("jwtVerifier: audience is required");
  const clockTolerance = secondsOption("clockToleranceSeconds", options.clockToleranceSeconds, 60);
  const maxTokenAge =
    options.maxTokenAgeSeconds === undefined ? undefined : secondsOption("maxTokenAgeSeconds", options.maxTokenAgeSeconds, 0);
  const requiredScopes = options.requiredScope === undefined ? [] : listOf(options.requiredScope);
  const claim = options.organizationClaim;
  if (typeof claim === "string" && claim === "") throw new Error("jwtVerifier: organizationClaim must name a claim");
  const organizationOf = typeof claim === "function" ? claim : (claims: JWTPayload) => claims[claim];
  const now = options.now ?? (() => new Date());
  const verifyOptions = {
    algorithms,
    issuer,
    audience,
    clockTolerance,
    ...(maxTokenAge === undefined ? {} : { maxTokenAge }),
    ...(options.type === undefined ? {} : { typ: options.type }),
    // RFC 9068 §2.2: an access token has an expiry; one without would be valid forever.
    requiredClaims: ["exp"],
  };

  async function verified(token: string): Promise<JWTPayload> {
    try {
      const currentDate = now();
      const result =
        source.kind === "secret"
          ? await jwtVerify(token, source.secret, { ...verifyOptions, currentDate })
          : await jwtVerify(token, source.getKey, { ...verifyOptions, currentDate });
      return result.payload;
    } catch (error) {
      if (isTokenVerificationUnavailableError(error)) throw error;
      const refusal = refusalOf(error);
      if (refusal !== undefined) throw refusal;
      // Said to the operator (onError), never to the client.
      throw new Error(`jwtVerifier: could not verify a token: verification failed unexpectedly (${String(error)})`, { cause: error });
    }
  }

  return {
    async verify(token: string, orgId: string, _request: VerifyContext): Promise<Principal> {
      const claims = await verified(token);
      const organization = organizationOf(claims);
      // The same refusal as a malformed token: a token of organization A on B's path tells nothing about B.
      if (typeof organization !== "string" || organization === "" || organization !== orgId) throw invalidToken(REFUSAL.invalid);
      const scopes = scopesOf(claims);
      const missing = requiredScopes.filter((scope) => !scopes.has(scope));
      if (missing.length > 0) {
        throw new TokenRefusedError("insufficient_scope", `The access token lacks the scope ${requiredScopes.join(" ")}.`, {
          scope: requiredScopes.join(" "),
        });
      }
      const client = clientOf(claims);
      return client === undefined ? { orgId } : { orgId, tokenId: client };
    },
  };
}
