/**
 * What a failed push is recorded as (`EventReceiver.lastError`), in the service's own words. The
 * organization's admins and viewers read it, and the receiver's URL is the tenant's to choose: if
 * the answer's body or a socket error's text were kept, a receiver URL would read back whatever
 * answers there (issue 27). So only the status, an RFC 8935 §2.4 error code from the registry —
 * protocol, not free text; its `description` is the receiver's own words and is dropped — and, for
 * a connection, "could not resolve", "could not connect" or "timed out".
 */
import { OutboundAddressRefusedError } from "../outbound/outbound-address-policy.js";
import type { DeliveryFailure } from "./event-receiver-store.js";

/** The failure without when and which SET. */
export type PushFailure = Pick<DeliveryFailure, "status" | "error" | "description">;

/** RFC 8935 §2.4's error codes (the IANA "Security Event Token Error Codes" registry), with what each tells the organization. */
const SET_ERRORS: Readonly<Record<string, string>> = {
  invalid_request: "the receiver found the request malformed",
  invalid_key: "the receiver could not verify the SET's signature with our keys; it may not have fetched the JWKS since a key rotation",
  invalid_issuer: "the receiver does not accept the SET's issuer (iss)",
  invalid_audience: "the receiver does not accept the SET's audience (aud): check the receiver's audience",
  authentication_failed: "the receiver could not authenticate the push: check the receiver's authorization",
  access_denied: "the receiver refused the push: check the receiver's authorization",
};

/** The RFC 8935 §2.4 `err` of an error answer's body, when the body is that JSON object with a registered code. */
function setErrorOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    const err = typeof parsed === "object" && parsed !== null ? (parsed as { err?: unknown }).err : undefined;
    return typeof err === "string" && Object.hasOwn(SET_ERRORS, err) ? err : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A push answered with a status other than 2xx.
 *
 * @example pushFailureOfAnswer(302, "") // { status: 302, error: "redirect", description: "the receiver answered 302 (a redirect); …" }
 */
export function pushFailureOfAnswer(status: number, body: string): PushFailure {
  if (status >= 300 && status < 400)
    return {
      status,
      error: "redirect",
      description: `the receiver answered ${status} (a redirect); redirects are not followed: register the URL the receiver is at`,
    };
  const err = setErrorOf(body);
  if (err !== undefined) return { status, error: err, description: `${SET_ERRORS[err]} (${err}, HTTP ${status})` };
  return { status, error: "http", description: `the receiver answered HTTP ${status}` };
}

/**
 * A push that got no answer: the policy refused the address, the name did not resolve, the
 * connection failed, or `timeoutMs` passed. Refused, reset, unreachable, a TLS failure and a
 * protocol error are one cause: apart, they would tell a port that speaks TLS or something other
 * than HTTP from a closed one, which makes a port scanner of a receiver URL.
 */
export function pushFailureOfError(error: unknown, timeoutMs: number): PushFailure {
  if (error instanceof OutboundAddressRefusedError) return { error: "address", description: `the receiver URL's host ${error.message}` };
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError")
    return { error: "timeout", description: `the receiver did not answer within ${timeoutMs} ms` };
  const code = String((error as NodeJS.ErrnoException | undefined)?.code ?? "");
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ENODATA")
    return { error: "network", description: "could not resolve the receiver's host name" };
  return {
    error: "network",
    description: "could not connect to the receiver, or the connection (or its TLS handshake) failed before it answered",
  };
}
