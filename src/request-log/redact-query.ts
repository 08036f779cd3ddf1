/**
 * Removing secrets from the query string a provisioning-log entry keeps: clients put tokens in
 * URLs (`?access_token=…`, RFC 6750 §2.3), and a log shown to an organization's viewers must not
 * become where another organization's token is read.
 */
import { isSecretName, mayHoldSecret, REDACTED } from "./redact-body.js";

// RFC 7644 §3.4.2 (filter, sortBy, sortOrder, startIndex, count), §3.9 (attributes,
// excludedAttributes) and RFC 9865 (cursor): what a SCIM client has reason to send, kept as sent.
const SCIM_PARAMETERS: ReadonlySet<string> = new Set([
  "filter",
  "sortby",
  "sortorder",
  "startindex",
  "count",
  "cursor",
  "attributes",
  "excludedattributes",
]);

// A name kept beside its masked value: a short plain word. Anything else may itself be the secret.
const PLAIN_NAME = /^[A-Za-z][\w.-]{0,39}$/;

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return undefined;
  }
}

function redactedPair(pair: string, secrets: ReadonlySet<string>): string {
  if (pair === "") return pair;
  const equals = pair.indexOf("=");
  const rawName = equals < 0 ? pair : pair.slice(0, equals);
  const name = decoded(rawName);
  if (name === undefined || !PLAIN_NAME.test(name)) return REDACTED;
  if (equals < 0) return SCIM_PARAMETERS.has(name.toLowerCase()) || !isSecretName(name, secrets) ? pair : REDACTED;
  const value = decoded(pair.slice(equals + 1));
  // A SCIM parameter is kept unless its value names a secret (`filter=password eq "…"`).
  const keep = SCIM_PARAMETERS.has(name.toLowerCase()) && value !== undefined && !mayHoldSecret(value, secrets);
  return keep ? pair : `${rawName}=${REDACTED}`;
}

/**
 * `url` (a path with its query) with every query parameter but the SCIM ones masked: their
 * values, and the parameter whole when its name is not a short plain word. A SCIM parameter whose
 * value names a secret is masked too. The path before `?` is kept as it is.
 *
 * @example redactQuery("/v2/Users?filter=userName%20eq%20%22a%22&access_token=abc", new Set(["password"]))
 * // "/v2/Users?filter=userName%20eq%20%22a%22&access_token=[redacted]"
 */
export function redactQuery(url: string, secrets: ReadonlySet<string>): string {
  const at = url.indexOf("?");
  if (at < 0 || at === url.length - 1) return url;
  const pairs = url.slice(at + 1).split("&");
  return `${url.slice(0, at)}?${pairs.map((pair) => redactedPair(pair, secrets)).join("&")}`;
}
