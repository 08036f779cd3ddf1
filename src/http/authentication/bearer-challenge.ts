/**
 * The `WWW-Authenticate` value of the SCIM router (RFC 6750 §3): the `Bearer` scheme with the
 * realm, and, when a verifier said why it refused a token, the error code, its description and
 * the scope needed.
 */
import type { BearerError } from "../../errors.js";

/** The realm every challenge of the SCIM router names. */
const REALM = "SCIM";

// RFC 6750 §3: error_description and scope are %x20-21 / %x23-5B / %x5D-7E (scope tokens, RFC
// 6749 §3.3, are the same without the space that separates them).
const NOT_ALLOWED = /[^\x20\x21\x23-\x5B\x5D-\x7E]/g;

/**
 * The challenge for a 401 or 403: `Bearer realm="SCIM"`, followed by `error`,
 * `error_description` and `scope` when `error` is given (RFC 6750 §3: a request without
 * credentials gets no error code). Characters the RFC does not allow in a quoted value are
 * replaced by `?`, so a verifier's text can never break the header.
 *
 * @example bearerChallenge({ error: "invalid_token", description: "The access token has expired." })
 * // 'Bearer realm="SCIM", error="invalid_token", error_description="The access token has expired."'
 */
export function bearerChallenge(error?: BearerError): string {
  let challenge = `Bearer realm="${REALM}"`;
  if (error === undefined) return challenge;
  challenge += `, error="${error.error}"`;
  challenge += `, error_description="${error.description.replace(NOT_ALLOWED, "?")}"`;
  if (error.scope !== undefined) {
    const scope = error.scope.replace(NOT_ALLOWED, "?").trim().replace(/ +/g, " ");
    if (scope !== "") challenge += `, scope="${scope}"`;
  }
  return challenge;
}
