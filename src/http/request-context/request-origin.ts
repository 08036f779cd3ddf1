/**
 * The absolute base URL of the SCIM service for a request, for `Location` and `meta.location`
 * (RFC 7644 §3.1 asks for absolute URIs). The app's `PUBLIC_URL_SETTING` wins when set, so no
 * client-sent header is ever reflected into a URL (issue 27: a forged `Host` made `Location`
 * point elsewhere). Otherwise, behind a proxy, the forwarded scheme and host are used only when
 * the app's `trust proxy` setting trusts the peer, as Express does for `req.protocol`; else the
 * `Host` header.
 */
import type { Request } from "express";

/**
 * The Express app setting holding the address clients reach the app at, e.g.
 * `https://scim.example.com` (a path prefix is kept): `app.set(PUBLIC_URL_SETTING, url)`. Every
 * URL scimkit's routers build for a client — `Location`, `meta.location`, the analytics
 * interface's links — then starts with it, whatever `Host` or `X-Forwarded-Host` says.
 */
export const PUBLIC_URL_SETTING = "scimkit public url";

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

/** The app's configured public URL without a trailing slash, if it has one. */
function configuredOrigin(request: Request): string | undefined {
  const configured: unknown = request.app.get(PUBLIC_URL_SETTING);
  return typeof configured === "string" && configured !== "" ? configured.replace(/\/+$/, "") : undefined;
}

/** `scheme://host` the client reaches the app at: the app's `PUBLIC_URL_SETTING`, else as the client addressed it. */
export function requestOrigin(request: Request): string {
  const configured = configuredOrigin(request);
  if (configured !== undefined) return configured;
  const forwardedHost = trustsPeer(request) ? firstForwarded(request.get("x-forwarded-host")) : undefined;
  const host = forwardedHost ?? request.get("host") ?? "localhost";
  return `${request.protocol}://${host}`;
}

/** The default base URL: origin plus the path the router is mounted at (`/scim/Organizations/acme/v2`). */
export function defaultBaseUrl(request: Request): string {
  return `${requestOrigin(request)}${request.baseUrl}`;
}
