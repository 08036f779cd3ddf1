/**
 * The access tokens scimkit issues itself (issue 20 item 3, OAuth 2.0 client credentials, RFC 6749
 * §4.4): short-lived JWTs (RFC 9068) signed with one asymmetric key of the deployment, whose
 * public half is published as a JWKS. Signing and key handling are jose's.
 */
import { randomUUID } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK, SignJWT } from "jose";

/** The one scope scimkit's access tokens carry and its token endpoint grants: the SCIM API. */
export const SCIM_SCOPE = "scim";

/** The claim naming the organization a scimkit access token acts for. */
export const ORGANIZATION_CLAIM = "org_id";

/**
 * The claim naming the client secret that obtained a scimkit access token (`TokenRecord.secretId`):
 * a private claim (RFC 7519 §4.3), so the token verifies only while that secret is current.
 */
export const SECRET_ID_CLAIM = "client_secret_id";

/** RFC 9068 §2.1: the `typ` of a JWT access token, so no other JWT signed by the key passes for one. */
export const ACCESS_TOKEN_TYPE = "at+jwt";

/** Lifetime of an access token unless configured: 15 minutes. */
export const DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS = 900;

/** The longest lifetime allowed: a day. A client asks again when its token expires. */
const MAX_LIFETIME_SECONDS = 24 * 60 * 60;

/** Signing algorithms by key type: the ones RFC 7518 and RFC 8037 define for these keys. */
const ALGORITHM_OF_KEY: Readonly<Record<string, string>> = { "EC:P-256": "ES256", "OKP:Ed25519": "EdDSA", RSA: "RS256" };

/** A private signing key as a JWK (RFC 7517), e.g. `JSON.parse` of what `generateSigningKey` made. */
export type SigningKey = JWK;

/** The algorithms `generateSigningKey` makes keys for. */
export type SigningAlgorithm = "ES256" | "EdDSA";

/** Options of `accessTokenIssuer`. */
export interface AccessTokenIssuerOptions {
  /**
   * The private key tokens are signed with, as a JWK: EC P-256 (ES256), OKP Ed25519 (EdDSA) or RSA
   * (RS256); make one with `generateSigningKey()`. Keep it out of the database that holds the
   * client secrets' digests — whoever reads it can mint tokens for every organization — e.g. in
   * the deployment's secret store, passed in by environment. Its `kid` is its RFC 7638 thumbprint
   * unless it names one.
   */
  readonly signingKey: SigningKey;
  /** The `iss` of the tokens: this service's URL, e.g. `"https://scim.example.com"`. */
  readonly issuer: string;
  /** The `aud` of the tokens. Default: `issuer` (the tokens are for this service alone). */
  readonly audience?: string;
  /** Seconds an access token is valid: 60 to 86,400. Default 900 (15 minutes). */
  readonly lifetimeSeconds?: number;
  /** The clock. Default `() => new Date()`. */
  readonly now?: () => Date;
}

/** Whom a token is issued to. */
export interface AccessTokenGrant {
  /** The organization the token acts for. */
  readonly orgId: string;
  /** The client it is issued to (its `sub` and `client_id`). */
  readonly clientId: string;
  /** The id of the client secret that authenticated (`TokenRecord.secretId`), carried as `client_secret_id`. */
  readonly secretId: string;
  /**
   * ISO 8601 time the token must not outlive, e.g. the expiry of the secret that obtained it:
   * `exp` is the earlier of this and the configured lifetime. Absent: the lifetime alone.
   */
  readonly notAfter?: string;
}

/** A freshly signed access token and what the token endpoint says of it (RFC 6749 §5.1). */
export interface IssuedAccessToken {
  /** The JWT. */
  readonly accessToken: string;
  /** Seconds until it expires. */
  readonly expiresIn: number;
  /** The scope granted. */
  readonly scope: string;
}

/** Signs access tokens and publishes the key that verifies them. */
export interface AccessTokenIssuer {
  /** The `iss` of every token. */
  readonly issuer: string;
  /** The `aud` of every token. */
  readonly audience: string;
  /** The algorithm tokens are signed with. */
  readonly algorithm: string;
  /** The public key, as the JWKS to serve and to verify tokens with (no private part). */
  readonly jwks: JSONWebKeySet;
  /** Signs a token for `grant`, valid from now for the configured lifetime, or until `grant.notAfter` when sooner. */
  issue(grant: AccessTokenGrant): Promise<IssuedAccessToken>;
}

/**
 * A new private signing key as a JWK with its `alg` and `kid` (its RFC 7638 thumbprint), to be
 * generated once per deployment and kept as a secret (`JSON.stringify` it into the secret store).
 *
 * @example const key = await generateSigningKey(); // { kty: "EC", crv: "P-256", d: "…", kid: "…", alg: "ES256", … }
 */
export async function generateSigningKey(algorithm: SigningAlgorithm = "ES256"): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(algorithm, { extractable: true, ...(algorithm === "EdDSA" ? { crv: "Ed25519" } : {}) });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, alg: algorithm, kid: await calculateJwkThumbprint(jwk) };
}

/** The public members of a private JWK (RFC 7517 §4, RFC 7518 §6), with `use`, `alg` and `kid`. */
function publicJwk(jwk: JWK, algorithm: string, kid: string): JWK {
  const { kty, crv, x, y, n, e } = jwk;
  const members = jwk.kty === "RSA" ? { kty, n, e } : { kty, crv, x, ...(y === undefined ? {} : { y }) };
  return { ...members, use: "sig", alg: algorithm, kid };
}

/**
 * An issuer of access tokens signed with `options.signingKey`: RFC 9068 JWTs with `typ` `at+jwt`,
 * `iss`, `aud`, `sub` and `client_id` (the client), `client_secret_id` (the secret that obtained
 * it), `org_id` (the organization), `scope` `scim`, `iat`, `exp` and a random `jti`. Rejects a key that is not a private EC P-256, Ed25519 or RSA key.
 *
 * @example
 * const issuer = await accessTokenIssuer({ signingKey: JSON.parse(process.env.SCIMKIT_OAUTH_SIGNING_KEY!), issuer: "https://scim.example.com" });
 */
export async function accessTokenIssuer(options: AccessTokenIssuerOptions): Promise<AccessTokenIssuer> {
  const jwk = options.signingKey;
  const algorithm = ALGORITHM_OF_KEY[jwk.kty === "RSA" ? "RSA" : `${String(jwk.kty)}:${String(jwk.crv)}`];
  if (algorithm === undefined) throw new Error("accessTokenIssuer: signingKey must be an EC P-256, Ed25519 or RSA JWK");
  if (jwk.alg !== undefined && jwk.alg !== algorithm)
    throw new Error(`accessTokenIssuer: signingKey says alg ${jwk.alg}, but its key type signs with ${algorithm}`);
  if (typeof jwk.d !== "string") throw new Error("accessTokenIssuer: signingKey must be a private key (with its d member)");
  const lifetimeSeconds = options.lifetimeSeconds ?? DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS;
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds < 60 || lifetimeSeconds > MAX_LIFETIME_SECONDS) {
    throw new Error(`accessTokenIssuer: lifetimeSeconds must be a whole number from 60 to ${MAX_LIFETIME_SECONDS}`);
  }
  if (options.issuer === "") throw new Error("accessTokenIssuer: issuer is required");
  const audience = options.audience ?? options.issuer;
  const now = options.now ?? (() => new Date());
  const kid = jwk.kid ?? (await calculateJwkThumbprint(jwk));
  const privateKey = await importJWK({ ...jwk, alg: algorithm }, algorithm);

  return {
    issuer: options.issuer,
    audience,
    algorithm,
    jwks: { keys: [publicJwk(jwk, algorithm, kid)] },
    async issue(grant) {
      if (grant.orgId === "" || grant.clientId === "" || grant.secretId === "") {
        throw new Error("accessTokenIssuer: orgId, clientId and secretId are required");
      }
      const issuedAt = Math.floor(now().getTime() / 1000);
      const notAfter = grant.notAfter === undefined ? Number.POSITIVE_INFINITY : Math.floor(Date.parse(grant.notAfter) / 1000);
      if (Number.isNaN(notAfter)) throw new Error("accessTokenIssuer: notAfter must be an ISO 8601 time");
      // A token never outlives the secret that obtained it: its expiry ends the access it gave.
      const expiresAt = Math.max(issuedAt, Math.min(issuedAt + lifetimeSeconds, notAfter));
      const claims = { client_id: grant.clientId, [SECRET_ID_CLAIM]: grant.secretId, [ORGANIZATION_CLAIM]: grant.orgId, scope: SCIM_SCOPE };
      const accessToken = await new SignJWT(claims)
        .setProtectedHeader({ alg: algorithm, kid, typ: ACCESS_TOKEN_TYPE })
        .setIssuer(options.issuer)
        .setAudience(audience)
        .setSubject(grant.clientId)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .setJti(randomUUID())
        .sign(privateKey);
      return { accessToken, expiresIn: expiresAt - issuedAt, scope: SCIM_SCOPE };
    },
  };
}
