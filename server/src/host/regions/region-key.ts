/**
 * The credential between the regions' hosts (`SCIMKIT_REGION_KEY`, issue 30): a caller of the
 * region channel — the directory feed, a move's copy — presents it as a bearer token (RFC 6750
 * §2.1), compared as digests in constant time. It is the only credential there: whoever holds it
 * is another region of this service.
 */
import type { RequestHandler } from "express";
import { hashToken, sameTokenHash } from "scimkit";

/** Middleware: 401 with a JSON `detail` unless the request presents `key`. */
export function requireRegionKey(key: string): RequestHandler {
  const keyHash = hashToken(key);
  return (request, response, next) => {
    const header = request.headers.authorization ?? "";
    const presented = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    if (sameTokenHash(hashToken(presented), keyHash)) {
      next();
      return;
    }
    response.setHeader("WWW-Authenticate", 'Bearer realm="scimkit regions"');
    response.status(401).json({ status: 401, detail: "Present SCIMKIT_REGION_KEY, the key the regions' hosts share, as a bearer token." });
  };
}
