/**
 * The host's RFC 9967 delivery (issue 20), built the same way by `scimkit serve` and by
 * `scimkit receivers`: over the opened store's outbox, with receivers and signing keys in the
 * same storage (`scimkit_event_receivers` and `scimkit_event_keys` on SQL, memory otherwise), and
 * the host's addresses for the SETs' issuer, the JWKS and the poll endpoint. Building it starts
 * nothing: the host calls `delivery.start()`, the command never does.
 */
import {
  eventSigningKeys,
  memoryEventReceiverStore,
  memorySigningKeyRepository,
  securityEventDelivery,
  type EventSigningKeys,
  type SecurityEventDelivery,
  type SecurityEventDeliveryOptions,
} from "scimkit/events";
import { sqlEventReceiverStore, sqlSigningKeyRepository, type SqlStore } from "scimkit/sql";
import type { ResourceStore } from "scimkit/store";
import type { HostSettings } from "./host-settings.js";

/** Options of `hostEventDelivery`. */
export interface HostEventDeliveryOptions
  extends Pick<
    SecurityEventDeliveryOptions,
    "intervalMs" | "leaseMs" | "batchSize" | "requestTimeoutMs" | "backoff" | "backlog" | "maxReceiversPerOrganization"
  > {
  /**
   * The address receivers reach the host at (`SCIMKIT_PUBLIC_URL`, no trailing slash), e.g.
   * `https://scim.example.com`; a function when it is known only once the port is open.
   */
  readonly publicUrl: string | (() => string);
  /** Hears failures of the delivery loop (a database down). Default `console.error`. */
  readonly onError?: (error: unknown) => void;
  /**
   * `SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS`: host names, addresses and CIDR ranges push receivers may
   * be at although the address rules refuse them (on-premises receivers). Default: none.
   */
  readonly receiverAllowHosts?: readonly string[];
}

/** The delivery and the host's addresses that go with it. */
export interface HostEventDelivery {
  /** Push loop, poll and the receivers' API; not started. */
  readonly delivery: SecurityEventDelivery;
  /** The organizations' signing keys, for `securityEventJwks(keys)`. */
  readonly keys: EventSigningKeys;
  /** The `iss` of an organization's SETs: its SCIM base URL, `{publicUrl}/scim/Organizations/{orgId}/v2`. */
  issuer(orgId: string): string;
  /** Where the organization's JWKS is served: `{publicUrl}/scim/Organizations/{orgId}/events/jwks.json`. */
  jwksUrl(orgId: string): string;
  /**
   * Where poll receiver `receiverId` polls: `{publicUrl}/scim/Organizations/{orgId}/events/poll/{receiverId}`,
   * the analytics router's `securityEventPollUrl`.
   */
  pollUrl(orgId: string, receiverId: string): string;
}

/**
 * The bounds of the host's settings (`SCIMKIT_EVENT_BACKLOG_*`, `SCIMKIT_EVENT_RECEIVERS_PER_ORGANIZATION`)
 * as delivery options: the same for the server and for the `scimkit receivers` command.
 */
export function hostEventBounds(
  events: Pick<HostSettings["events"], "backlogMaxEvents" | "backlogMaxAgeMs" | "maxReceiversPerOrganization">,
): Pick<HostEventDeliveryOptions, "backlog" | "maxReceiversPerOrganization"> {
  return {
    backlog: { maxEvents: events.backlogMaxEvents, maxAgeMs: events.backlogMaxAgeMs },
    maxReceiversPerOrganization: events.maxReceiversPerOrganization,
  };
}

/** Whether `store` is a `sqlStore` (its Kysely instance and dialect are what the SQL receiver store needs). */
function isSqlStore(store: ResourceStore): store is SqlStore {
  return "db" in store && "dialect" in store;
}

/**
 * The delivery of `store`'s events. Throws when the store keeps no outbox (`ResourceStore.events`):
 * there would be nothing to deliver.
 *
 * @example
 * const events = hostEventDelivery(database.store, { publicUrl: "https://scim.example.com", onError });
 * app.get("/scim/Organizations/:orgId/events/jwks.json", securityEventJwks(events.keys));
 * app.post("/scim/Organizations/:orgId/events/poll/:receiverId", securityEventPollEndpoint(events.delivery));
 * events.delivery.start();
 */
export function hostEventDelivery(store: ResourceStore, options: HostEventDeliveryOptions): HostEventDelivery {
  const outbox = store.events;
  if (outbox === undefined) throw new Error("scimkit: this store keeps no event outbox, so it has no security events to deliver.");
  const { publicUrl, receiverAllowHosts, ...tuning } = options;
  const base = typeof publicUrl === "string" ? () => publicUrl : publicUrl;
  const organization = (orgId: string): string => `${base()}/scim/Organizations/${encodeURIComponent(orgId)}`;
  const sql = isSqlStore(store) ? store : undefined;
  const keys = eventSigningKeys(sql === undefined ? memorySigningKeyRepository() : sqlSigningKeyRepository(sql.db));
  const issuer = (orgId: string): string => `${organization(orgId)}/v2`;
  const delivery = securityEventDelivery({
    ...tuning,
    outbox,
    receivers: sql === undefined ? memoryEventReceiverStore({ outbox }) : sqlEventReceiverStore(sql.db, sql.dialect),
    keys,
    issuer,
    receiverAddressPolicy: { allowHosts: receiverAllowHosts ?? [], allowSetting: "SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS" },
  });
  return {
    delivery,
    keys,
    issuer,
    jwksUrl: (orgId) => `${organization(orgId)}/events/jwks.json`,
    pollUrl: (orgId, receiverId) => `${organization(orgId)}/events/poll/${encodeURIComponent(receiverId)}`,
  };
}
