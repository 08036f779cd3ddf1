/**
 * `scimkit/events` (docs/events.md): what the router tells you about its writes, and its delivery
 * to receivers as RFC 9967 security event tokens.
 *
 * - The lifecycle events: a `ScimEvent` per write, handed to the router's `onEvent` listener; with
 *   `durableEvents` the store's outbox (`EventOutbox`, `scimkit/store`) keeps them until they are
 *   delivered, `eventRecovery` redelivers what a dead process left, and `recoverPendingEvents`
 *   runs one recovery pass from a script.
 * - RFC 9967 delivery: `securityEventDelivery` pushes (RFC 8935) or serves for polling (RFC 8936)
 *   signed SETs per receiver, `eventSigningKeys` keeps and rotates the signing keys,
 *   `securityEventJwks` and `securityEventPollEndpoint` are their Express handlers, and
 *   `outboundAddressPolicy` decides where a receiver may be (and serves any other outbound request
 *   of the app). Receivers and keys live in an `EventReceiverStore` and a `SigningKeyRepository`:
 *   the memory ones here, the SQL ones in `scimkit/sql`, or your own (`boundedDeliveryFailure`
 *   bounds what it keeps of a failure).
 */
export type {
  ActivationEventAction,
  GroupEventType,
  LinkEventAction,
  MembershipEventAction,
  ResourceEventAction,
  ResourceEventType,
  ScimEvent,
  ScimEventAction,
  ScimEventListener,
  ScimWriteMethod,
  UserEventType,
} from "../http/lifecycle-events/scim-event.js";
export { recoverPendingEvents } from "../http/lifecycle-events/event-recovery.js";
export type { EventRecoveryOptions, RecoverPendingEventsOptions } from "../http/lifecycle-events/event-recovery.js";

export {
  DEFAULT_BACKLOG_MAX_AGE_MS,
  DEFAULT_BACKLOG_MAX_EVENTS,
  DEFAULT_MAX_RECEIVERS_PER_ORGANIZATION,
  InvalidEventReceiverError,
  securityEventDelivery,
} from "./security-event-delivery.js";
export type {
  BackoffOptions,
  BacklogOptions,
  PollBoundOptions,
  PollRequest,
  PollResponse,
  ReceiverStart,
  SecurityEventDelivery,
  SecurityEventDeliveryOptions,
} from "./security-event-delivery.js";
export type {
  ClaimReceiversRequest,
  DeliveryFailure,
  DeliveryProgress,
  EventDeliveryMethod,
  EventReceiver,
  EventReceiverInput,
  EventReceiverKey,
  EventReceiverStore,
  RetiredSigningKey,
  SigningKeyRepository,
  SkippedEvents,
  StoredSigningKey,
} from "./event-receiver-store.js";
export { MAX_FAILURE_DESCRIPTION_LENGTH, boundedDeliveryFailure } from "./bounded-delivery-failure.js";
export { memoryEventReceiverStore, memorySigningKeyRepository } from "./memory-event-receiver-store.js";
export type { MemoryEventReceiverStoreOptions } from "./memory-event-receiver-store.js";
export { DEFAULT_KEY_RETENTION_MS, DEFAULT_MAX_RETIRED_KEYS, SECURITY_EVENT_ALGORITHM, eventSigningKeys } from "./event-signing-keys.js";
export type {
  EventSigningKeys,
  EventSigningKeysOptions,
  PrivateSigningKey,
  // `scimkit/oauth` has a `SigningKey` of its own (a JWK); no name is exported by two entries.
  SigningKey as EventSigningKey,
} from "./event-signing-keys.js";
export { SECURITY_EVENT_URIS, isSecurityEventUri, securityEventUriOf } from "./security-event-uris.js";
export type { SecurityEventForm, SecurityEventUri } from "./security-event-uris.js";
export { securityEventJwks } from "../http/security-events/security-event-jwks.js";
export { securityEventPollEndpoint } from "../http/security-events/security-event-poll-endpoint.js";
export { OutboundAddressRefusedError, outboundAddressPolicy } from "../outbound/outbound-address-policy.js";
export type { OutboundAddressPolicy, OutboundAddressPolicyOptions } from "../outbound/outbound-address-policy.js";
