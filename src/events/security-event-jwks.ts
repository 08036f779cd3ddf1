/**
 * The JWKS of an organization's SET signing keys (RFC 7517 §5), as an Express handler: where
 * receivers fetch the public keys that verify its SETs.
 */
import type { RequestHandler } from "express";
import type { EventSigningKeys } from "./event-signing-keys.js";

/**
 * Answers `GET` with the JWKS of the organization in the route parameter `orgId`: an empty key set,
 * alike, for an organization without a key and for one that does not exist.
 *
 * @example app.get("/scim/Organizations/:orgId/events/jwks.json", securityEventJwks(keys));
 */
export function securityEventJwks(keys: EventSigningKeys): RequestHandler<{ orgId: string }> {
  return (request, response, next) => {
    keys.jwks(request.params.orgId).then((jwks) => {
      // An empty set is not kept: the organization's first key may be made the next moment.
      response.setHeader("Cache-Control", jwks.keys.length > 0 ? "public, max-age=300" : "no-store");
      response.json(jwks);
    }, next);
  };
}
