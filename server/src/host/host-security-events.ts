/**
 * RFC 9967 security events in the host (issue 20): the routes receivers call — each organization's
 * JWKS (RFC 7517 §5), to verify the SETs it is pushed, and the RFC 8936 poll endpoint — and the
 * background work: the delivery loop that pushes (RFC 8935) and the pruning of delivered events.
 */
import express, { type Router } from "express";
import { type EventSigningKeys, type SecurityEventDelivery, securityEventJwks, securityEventPollEndpoint } from "scimkit/events";

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
 * a SCIM endpoint, and the SCIM router would ask for a bearer token a receiver does not hold. The
 * JWKS makes no key (an organization's first receiver does) and answers an empty set alike for an
 * organization without a key and for one that does not exist, so it tells an outsider nothing of
 * which organizations there are beyond those that deliver events.
 */
export function securityEventRoutes(events: HostSecurityEvents): Router {
  const router = express.Router({ mergeParams: true });
  router.get("/jwks.json", securityEventJwks(events.keys) as express.RequestHandler);
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
