/**
 * The absolute base URL of the SCIM service for a request, for `Location` and `meta.location`
 * (RFC 7644 §3.1 asks for absolute URIs). Behind a proxy, the forwarded scheme and host are used
 * only when the app's `trust proxy` setting trusts the peer, as Express does for `req.protocol`.
 */
import type { Request } from "express";

function firstForwarded(value: string | undefined): string | undefined {
  const first = value?.split(",")[0]?.trim();
  return first ? first : undefined;
}

function trustsPeer(request: Request): boolean {
  const trust: unknown = request.app.get("trust proxy fn");
  return (
    typeof trust === "function" && (trust as (address: string, hop: number) => boolean)(request.socket.remoteAddress ?? "", 0) === true
  );
}

/** `scheme://host` of the request as the client addressed it. */
export function requestOrigin(request: Request): string {
  const forwardedHost = trustsPeer(request) ? firstForwarded(request.get("x-forwarded-host")) : undefined;
  const host = forwardedHost ?? request.get("host") ?? "localhost";
  return `${request.protocol}://${host}`;
}

/** The default base URL: origin plus the path the router is mounted at (`/scim/Organizations/acme/v2`). */
export function defaultBaseUrl(request: Request): string {
  return `${requestOrigin(request)}${request.baseUrl}`;
}
