/**
 * RFC 9967 security events in the host (issue 20): the routes receivers call — each organization's
 * JWKS (RFC 7517 §5), to verify the SETs it is pushed, and the RFC 8936 poll endpoint — and the
 * background work: the delivery loop that pushes (RFC 8935) and the pruning of delivered events.
 */
import express, { type Router } from "express";
import { type EventSigningKeys, ScimError, type SecurityEventDelivery, securityEventJwks, securityEventPollEndpoint } from "scimkit";

/** What the host needs to deliver security events. */
export interface HostSecurityEvents {
  /** Receivers, their delivery state, polls, and the push loop (`securityEventDelivery`). */
  readonly delivery: SecurityEventDelivery;
  /** The organizations' SET signing keys, whose public halves the JWKS route serves. */
  readonly keys: EventSigningKeys;
  /** Where poll receiver `receiverId` polls, as the operator API shows it; default: the request's own origin. */
  readonly pollUrl?: (orgId: string, receiverId: string) => string;
  /** How often delivered events are pruned from the outbox, in milliseconds. Default 600,000 (10 minutes). */
  readonly pruneIntervalMs?: number;
}

/**
 * `GET /scim/Organizations/{orgId}/events/jwks.json` and `POST …/events/poll/{receiverId}`, mounted
 * at `/scim/Organizations/:orgId/events`, beside the SCIM base URL rather than under it: neither is
 * a SCIM endpoint, and the SCIM router would ask for a bearer token a receiver does not hold.
 * `organizationExists` guards the JWKS: a key is made on an organization's first use, and an
 * unauthenticated reader must not make one for every id it can think of.
 */
export function securityEventRoutes(events: HostSecurityEvents, organizationExists: (orgId: string) => Promise<boolean>): Router {
  const router = express.Router({ mergeParams: true });
  const jwks = securityEventJwks(events.keys);
  router.get("/jwks.json", (request, response, next) => {
    const { orgId } = request.params as { readonly orgId: string };
    organizationExists(orgId).then((exists) => {
      if (!exists) return next(new ScimError(404, undefined, `There is no organization ${JSON.stringify(orgId)} on this service.`));
      jwks(request as Parameters<typeof jwks>[0], response, next);
    }, next);
  });
  router.post("/poll/:receiverId", securityEventPollEndpoint(events.delivery) as express.RequestHandler);
  return router;
}

/**
 * Starts the push loop and a timer that prunes, in every organization `organizations` lists, the
 * events every receiver has been given; resolves the returned stop once both have stopped.
 */
export function runSecurityEvents(
  events: HostSecurityEvents,
  organizations: () => Promise<readonly string[]>,
  onError: (error: unknown) => void,
): () => Promise<void> {
  events.delivery.start();
  let pruning: Promise<void> = Promise.resolve();
  const prune = async (): Promise<void> => {
    for (const orgId of await organizations()) await events.delivery.prune(orgId);
  };
  const timer = setInterval(() => {
    pruning = pruning.then(prune).catch(onError);
  }, events.pruneIntervalMs ?? 600_000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await pruning;
    await events.delivery.stop();
  };
}
