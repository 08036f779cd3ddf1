/**
 * The JWKS of an organization's SET signing keys (RFC 7517 §5), as an Express handler: where
 * receivers fetch the public keys that verify its SETs.
 */
import type { RequestHandler } from "express";
import { scimError } from "../../errors.js";
import { isPossibleId } from "../../is-possible-id.js";
import { setNoSniff } from "../sending/no-sniff.js";
import type { EventSigningKeys } from "../../events/event-signing-keys.js";

/**
 * Answers `GET` with the JWKS of the organization in the route parameter `orgId`: an empty key set,
 * alike, for an organization without a key and for one that does not exist; an id no organization
 * can have (`isPossibleId`) goes to the error handler as a 404 `ScimError`.
 *
 * @example app.get("/scim/Organizations/:orgId/events/jwks.json", securityEventJwks(keys));
 */
export function securityEventJwks(keys: EventSigningKeys): RequestHandler<{ orgId: string }> {
  return (request, response, next) => {
    setNoSniff(response);
    const { orgId } = request.params;
    // No organization has such an id, and the key store must not be asked (PostgreSQL refuses NUL).
    if (!isPossibleId(orgId)) {
      next(scimError("notFound", "There is no such organization on this service."));
      return;
    }
    keys.jwks(orgId).then((jwks) => {
      // An empty set is not kept: the organization's first key may be made the next moment.
      response.setHeader("Cache-Control", jwks.keys.length > 0 ? "public, max-age=300" : "no-store");
      response.json(jwks);
    }, next);
  };
}
