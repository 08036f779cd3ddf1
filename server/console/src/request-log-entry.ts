import type { RequestLogEntry } from "./analytics-api-types.js";

/** Why the service refused a request body (scimkit's `RequestBodyRefusal`). */
export type RequestBodyRefusal = NonNullable<RequestLogEntry["requestBodyRefused"]>;

/** What the request pane says of a body the service refused, in the operator's words. */
export function refusalText(refusal: RequestBodyRefusal): string {
  switch (refusal) {
    case "invalidJson":
      return "The body was not valid JSON: shown as received, with anything like a secret masked.";
    case "tooLarge":
      return "The body was larger than the service accepts, so it was not read or kept.";
    case "unsupportedMediaType":
      return "The body was not JSON (its Content-Type or encoding), so it was not read or kept.";
    case "incomplete":
      return "The body never arrived whole (the client stopped sending), so it was not kept.";
  }
}

/** The identity providers the log tells apart, for its filter. */
export const IDENTITY_PROVIDERS = [
  "entra",
  "okta",
  "onelogin",
  "google",
  "jumpcloud",
  "ping",
  "other",
] as const satisfies readonly RequestLogEntry["identityProvider"][];

/** A body as indented JSON when it parses (a truncated one does not), else as it is. */
export function pretty(body: string | undefined): string {
  if (body === undefined) return "";
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** The time of day of `iso`, with the date too when it is not today. */
export function timeOf(iso: string): string {
  const date = new Date(iso);
  const today = date.toDateString() === new Date().toDateString();
  return today ? date.toLocaleTimeString() : date.toLocaleString();
}

/** The path without the organization's base, which every row would repeat. */
export function shortPath(path: string): string {
  return path.replace(/^\/scim\/Organizations\/[^/]+\/v2/, "") || "/";
}
