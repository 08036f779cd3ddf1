/**
 * An OAuth 2.0 token endpoint per organization (issue 20 item 3): the client credentials grant of
 * RFC 6749 §4.4, so an identity provider configured with a client id and secret (Entra's "OAuth 2.0
 * client credentials grant") gets short-lived access tokens for the SCIM API instead of holding a
 * long-lived bearer token. Mount it with `:orgId` in the path:
 * `app.use("/oauth/Organizations/:orgId", createOAuthTokenRouter({ clients, issuer }))` serves
 * `POST …/token` and the public keys at `GET …/jwks`, and `app.use("/oauth", oauthPathErrorHandler())`
 * after it answers a malformed %-escape in `:orgId` as RFC 6749 §5.2 says.
 */
import express, { type Request, type RequestHandler, type Router } from "express";
import type { AccessTokenIssuer } from "../../auth/access-token-issuer.js";
import { SCIM_SCOPE } from "../../auth/access-token-issuer.js";
import { hashToken, secretIdOf } from "../../auth/hash-token.js";
import type { TokenStore } from "../../auth/hashed-token-store.js";
import type { TokenRecord } from "../../auth/token-record.js";
import { isTokenRefusedError } from "../../auth/token-refused-error.js";
import type { Principal } from "../../auth/token-verifier.js";
import { asyncHandler } from "../express-helpers/async-handler.js";
import {
  type AuthenticationFailureLimit,
  authenticationFailureLimit,
  failureKey,
  sourceOf,
} from "../rate-limits/authentication-failure-limit.js";
import { isPossibleId } from "../../is-possible-id.js";
import { OAuthError, oauthError } from "../../oauth-errors.js";
import { noSniff } from "../sending/no-sniff.js";
import { noStore, oauthErrorHandler } from "./oauth-error.js";
import type { RateLimiter } from "../../store/rate-limiter.js";
import { tokenBucketLimiter } from "../rate-limits/token-bucket-limiter.js";

/** A token request is a handful of short parameters; anything bigger is not one. */
const MAX_BODY_BYTES = 8 * 1024;
const MAX_PARAMETERS = 16;
/** Failed client authentications allowed per client, and per source address, before 429: 10 a minute. */
const DEFAULT_FAILED_AUTHENTICATIONS_PER_MINUTE = 10;

/** Options of `createOAuthTokenRouter`. */
export interface OAuthTokenRouterOptions {
  /**
   * The clients: the token store (`createTokenStore()`, `store.tokens`), or its `verify` and `list`
   * (e.g. `verify` wrapped by a policy of the host's). A client is one of the organization's
   * tokens, its id the token's record id, its secret the token — hashed, rotatable and revocable
   * like any token. `verify(client_secret, orgId, …)` must resolve to a principal whose `tokenId`
   * is the `client_id` presented; `list` gives the secret's id (`secretId`) and expiry, which the
   * access token is bound to.
   */
  readonly clients: Pick<TokenStore, "verify" | "list">;
  /** Signs the access tokens; its `jwks` is served at `GET /jwks`. */
  readonly issuer: AccessTokenIssuer;
  /**
   * Counts failed client authentications (a wrong or unknown client id or secret), under two keys:
   * the client (organization and `client_id`) and the source address (`request.ip`, as Express's
   * `trust proxy` resolves it; an IPv6 address counts by its /64). A key it refuses is answered 429 `slow_down` with `Retry-After`,
   * before its secret is checked, until its allowance has refilled. Default: a token bucket in
   * this process allowing 10 failures a minute per
   * key, in a burst of as many; several processes each count their own unless given a shared
   * limiter (`sqlRateLimiter`); with one, a process that has not yet met a key's refusal checks
   * one more attempt before it refuses too, so the bound on wrong secrets is the limit plus one
   * per process. `false`: no bound.
   */
  readonly failureLimiter?: RateLimiter | false;
  /** Called with each unexpected error (answered with a bare 500). Default: `console.error`. */
  readonly onError?: (error: unknown, request: Request) => void;
}

/** The client's id and secret, as RFC 6749 §2.3.1 lets it send them. */
interface ClientCredentials {
  readonly clientId: string;
  readonly secret: string;
}

function invalidRequest(description: string): OAuthError {
  return oauthError("invalid_request", description);
}

/** One answer for every client that did not authenticate, so it never tells which part was wrong. */
function invalidClient(): OAuthError {
  return oauthError("invalid_client", "Client authentication failed: send the client id and secret issued for this organization.");
}

/** RFC 6585 §4: too many failed authentications from this client or address; retry after `seconds`. */
function tooManyFailures(seconds: number): OAuthError {
  const description = `Too many failed client authentications; retry after ${seconds} second${seconds === 1 ? "" : "s"}.`;
  return oauthError("slow_down", description, { retryAfterSeconds: seconds });
}

/** The key of the request's source address (an IPv6 client's /64) for `failureLimiter`. */
function addressKey(request: Request): string {
  return failureKey("address", sourceOf(request.ip ?? ""));
}

/**
 * When secret `secret` of client `record` stops being valid (`null`: it is not one of the client's
 * secrets any more, e.g. a rotation raced this request; `undefined`: it does not expire): the
 * access token issued with it must not outlive it.
 */
function secretEnd(record: TokenRecord | undefined, secretId: string): string | undefined | null {
  if (record === undefined) return null;
  if (secretId === record.secretId) return record.expiresAt;
  if (secretId === record.previousSecretId && record.previousSecretValidUntil !== undefined) return record.previousSecretValidUntil;
  return null;
}

/** RFC 6749 §3.2: every parameter at most once, each a string. */
function parametersOf(request: Request): ReadonlyMap<string, string> {
  if (!request.is("application/x-www-form-urlencoded")) {
    throw invalidRequest("Send the token request as application/x-www-form-urlencoded (RFC 6749 §4.4.2).");
  }
  const body: unknown = request.body;
  const parameters = new Map<string, string>();
  if (typeof body !== "object" || body === null) return parameters;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== "string") throw invalidRequest(`The parameter ${JSON.stringify(name)} is sent more than once.`);
    // RFC 6749 §3.2: a parameter sent without a value is treated as omitted.
    if (value !== "") parameters.set(name, value);
  }
  return parameters;
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded, then joined by ":" and base64-encoded. */
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll("+", " "));
  } catch {
    throw invalidRequest("The Basic credentials are not form-encoded (RFC 6749 §2.3.1).");
  }
}

function credentialsOf(request: Request, parameters: ReadonlyMap<string, string>): ClientCredentials {
  const authorization = request.get("authorization");
  const inBody = parameters.has("client_secret");
  if (authorization !== undefined) {
    // RFC 6749 §2.3: a client uses one authentication method per request.
    if (inBody) throw invalidRequest("Send the client secret either in the Authorization header or in the body, not both.");
    const basic = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
    if (basic?.[1] === undefined) throw invalidClient();
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw invalidClient();
    const clientId = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    const bodyId = parameters.get("client_id");
    if (bodyId !== undefined && bodyId !== clientId)
      throw invalidRequest("The client_id in the body differs from the one in the Authorization header.");
    if (clientId === "" || secret === "") throw invalidClient();
    return { clientId, secret };
  }
  const clientId = parameters.get("client_id");
  const secret = parameters.get("client_secret");
  if (clientId === undefined || secret === undefined) throw invalidClient();
  return { clientId, secret };
}

/** RFC 6749 §3.3: the scope requested must be one scimkit grants; absent, the default one. */
function checkScope(parameters: ReadonlyMap<string, string>): void {
  const requested = parameters.get("scope");
  if (requested === undefined) return;
  const scopes = requested.split(" ").filter((scope) => scope !== "");
  if (scopes.some((scope) => scope !== SCIM_SCOPE)) {
    throw oauthError("invalid_scope", `The only scope granted is ${JSON.stringify(SCIM_SCOPE)}.`);
  }
}

/**
 * The token endpoint of the organization in the mount path's `:orgId`: `POST /token` with
 * `grant_type=client_credentials` and the client authenticated by HTTP Basic or by `client_id`
 * and `client_secret` in the body (RFC 6749 §2.3.1) answers `{"access_token", "token_type":
 * "Bearer", "expires_in", "scope"}` (§5.1); every failure is an RFC 6749 §5.2 error —
 * `invalid_client` (401, `WWW-Authenticate: Basic`) for a wrong, unknown or foreign client, the
 * same answer whichever it is; `unsupported_grant_type`, `invalid_scope` and `invalid_request`
 * (400) for the rest. `GET /jwks` serves the issuer's public keys.
 *
 * @example
 * const issuer = await accessTokenIssuer({ signingKey, issuer: "https://scim.example.com" });
 * app.use("/oauth/Organizations/:orgId", createOAuthTokenRouter({ clients: store.tokens, issuer }));
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: clientCredentialsVerifier({ clients: store.tokens, issuer }) }));
 * // a client: POST /oauth/Organizations/acme/token, Authorization: Basic base64(clientId:secret),
 * // body grant_type=client_credentials
 */
export function createOAuthTokenRouter(options: OAuthTokenRouterOptions): Router {
  const { clients, issuer } = options;
  const onError = options.onError ?? ((error: unknown) => console.error("scimkit oauth:", error));
  const router = express.Router({ mergeParams: true });
  router.use(noSniff());
  const form = express.urlencoded({ extended: false, limit: MAX_BODY_BYTES, parameterLimit: MAX_PARAMETERS });
  const perMinute = DEFAULT_FAILED_AUTHENTICATIONS_PER_MINUTE;
  const failures: AuthenticationFailureLimit | undefined =
    options.failureLimiter === false
      ? undefined
      : authenticationFailureLimit(options.failureLimiter ?? tokenBucketLimiter({ requestsPerSecond: perMinute / 60, burst: perMinute }));

  const refuseIfWaiting = (keys: readonly string[]): void => {
    const wait = failures?.waitFor(keys);
    if (wait !== undefined) throw tooManyFailures(wait);
  };
  /** The answer to a failed authentication: 401 `invalid_client`, or 429 once this failure reached the bound. */
  const failed = async (keys: readonly string[]): Promise<OAuthError> => {
    const wait = await failures?.fail(keys);
    return wait === undefined ? invalidClient() : tooManyFailures(wait);
  };
  // An address over the bound is refused before its body is even read.
  const admitAddress: RequestHandler = (request, _response, next) => {
    try {
      refuseIfWaiting([addressKey(request)]);
      next();
    } catch (error) {
      next(error);
    }
  };

  router.post(
    "/token",
    admitAddress,
    form,
    asyncHandler(async (request, response) => {
      const orgId = request.params["orgId"];
      if (typeof orgId !== "string" || orgId === "") throw new Error("createOAuthTokenRouter: mount the router at a path with :orgId");
      const parameters = parametersOf(request);
      const address = addressKey(request);
      let client: ClientCredentials;
      try {
        client = credentialsOf(request, parameters);
      } catch (error) {
        throw error instanceof OAuthError && error.code === "invalid_client" ? await failed([address]) : error;
      }
      // Counted for every client id, issued or not, so a 429 tells nothing of which exist.
      const keys = [address, failureKey("client", orgId, client.clientId)];
      refuseIfWaiting(keys);
      // No client exists under an id no store can hold (PostgreSQL refuses NUL): unknown, like any other.
      if (!isPossibleId(orgId)) throw await failed(keys);
      let principal: Principal | null;
      try {
        principal = await clients.verify(client.secret, orgId, {
          method: request.method,
          path: request.path,
          ...(request.ip ? { ip: request.ip } : {}),
        });
      } catch (error) {
        if (isTokenRefusedError(error)) throw await failed(keys);
        throw error;
      }
      if (principal === null || principal.orgId !== orgId || principal.tokenId !== client.clientId) throw await failed(keys);
      const grantType = parameters.get("grant_type");
      if (grantType === undefined) throw invalidRequest("The grant_type parameter is missing; send grant_type=client_credentials.");
      if (grantType !== "client_credentials") {
        throw oauthError("unsupported_grant_type", "This endpoint grants client_credentials only (RFC 6749 §4.4).");
      }
      checkScope(parameters);
      // The access token names the secret that obtained it and ends no later than that secret, so
      // rotating, revoking or the expiry of the secret ends it too (clientCredentialsVerifier).
      const secretId = secretIdOf(hashToken(client.secret));
      const notAfter = secretEnd(
        (await clients.list(orgId)).find((record) => record.id === client.clientId),
        secretId,
      );
      if (notAfter === null) throw invalidClient();
      const issued = await issuer.issue({
        orgId,
        clientId: client.clientId,
        secretId,
        ...(notAfter === undefined ? {} : { notAfter }),
      });
      noStore(response);
      response
        .status(200)
        .json({ access_token: issued.accessToken, token_type: "Bearer", expires_in: issued.expiresIn, scope: issued.scope });
    }),
  );
  router.all("/token", (_request, response, next) => {
    response.set("Allow", "POST");
    next(oauthError("invalid_request", "Use POST.", { status: 405 }));
  });
  router.get("/jwks", (_request, response) => {
    // Public keys; caching them for a few minutes spares us, and rotation waits at most that long.
    response.set("Cache-Control", "public, max-age=300").type("application/jwk-set+json").send(JSON.stringify(issuer.jwks));
  });
  router.use(oauthErrorHandler(onError));
  return router;
}
