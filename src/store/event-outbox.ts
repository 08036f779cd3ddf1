/**
 * The event outbox (issue 20): the lifecycle events of each committed write, recorded by the store
 * in the write's own transaction, so an event is neither lost nor invented when the process dies
 * between the commit and its delivery. A store that keeps one declares it as `ResourceStore.events`;
 * the router then feeds its `onEvent` listener from what was recorded, and recovers what a dead
 * process recorded but never delivered. Consumers that read in order (RFC 9967 delivery) read by
 * each organization's sequence.
 */
import type { ScimObject } from "../scim/schema/normalize-value.js";

/** One event as the core hands it to the store: everything but what the store assigns. */
export interface OutboxEventInput {
  /**
   * Unique id of the event, chosen by the core (a UUID v7): the `jti` of the Security Event Token
   * that reports it (RFC 8417 §2.2), so a receiver can drop a redelivery. A store keeps it unique
   * within the organization.
   */
  readonly jti: string;
  /** The event name, as `ScimEvent.type`: `user.created`, `group.members.added`, … */
  readonly type: string;
  /** The resource type id (`User`, `Group`, …). */
  readonly resourceType: string;
  /** The id of the resource the event is about. */
  readonly resourceId: string;
  /** The resource as rendered for the event (`ScimEvent.resource`): stored as one JSON document. */
  readonly resource: ScimObject;
  /** For `*.members.*` events: the member ids. */
  readonly memberIds?: readonly string[];
  /** The SCIM request method that made the change (`POST`, `PUT`, `PATCH`, `DELETE`), when known. */
  readonly method?: string;
}

/** An event as recorded: the input with the organization, its place in the organization's order, and when. */
export interface OutboxEvent extends OutboxEventInput {
  /** The organization the write happened in. */
  readonly orgId: string;
  /**
   * Position in the organization's events: 1 for its first, then each one more, without gaps, in
   * commit order — a consumer that has read up to `n` has seen every event up to `n` and none after.
   */
  readonly sequence: number;
  /** ISO 8601 time the store recorded it. */
  readonly recordedAt: string;
}

/** Names one recorded event: its organization and its sequence there. */
export type OutboxEventKey = Pick<OutboxEvent, "orgId" | "sequence">;

/**
 * What the core attaches to a write request (`CreateRequest.events`, …) so the store records the
 * write's events in the write's transaction. Absent for a store without `ResourceStore.events`.
 *
 * @typeParam R - what the write produced: `WriteResult` for create and update, `true` for delete.
 */
export interface EventRecording<R> {
  /**
   * Builds the events of the write from its result. The store calls it once, inside the
   * transaction, after everything else of the write succeeded, and records what it returns (none
   * for `[]`). Synchronous and without side effects: a rolled-back write may have called it.
   */
  build(result: R): readonly OutboxEventInput[];
  /**
   * Whether the in-process listeners have yet to receive the events. True when the router has an
   * `onEvent` listener: the events stay pending until `EventOutbox.markDelivered`. False records them
   * as delivered already, so no process recovers them for a listener that does not exist.
   */
  readonly pending: boolean;
  /**
   * ISO 8601 time until which no other process may claim the pending events
   * (`EventOutbox.claimPending`): the writing process delivers them itself before then.
   */
  readonly leaseUntil: string;
  /** Receives the events as recorded, with their sequence numbers, once the transaction has committed. */
  committed(events: readonly OutboxEvent[]): void;
}

/** Options of `EventOutbox.append`. */
export interface AppendEventsOptions {
  /** As `EventRecording.pending`. */
  readonly pending: boolean;
  /** As `EventRecording.leaseUntil`. */
  readonly leaseUntil: string;
}

/** What `EventOutbox.claimPending` asks for. */
export interface ClaimPendingRequest {
  /** Most events to claim. At least 1. */
  readonly limit: number;
  /** ISO 8601 time now: events whose lease ended before it may be claimed. */
  readonly now: string;
  /** ISO 8601 time until which the claimed events are leased to the caller. */
  readonly leaseUntil: string;
}

/** What `EventOutbox.read` asks for. */
export interface ReadEventsRequest {
  /** The organization whose events to read. */
  readonly orgId: string;
  /** Return events with a sequence greater than this; 0 for the first. */
  readonly after: number;
  /** Most events to return. At least 1. */
  readonly limit: number;
}

/**
 * A store's outbox of committed lifecycle events (`ResourceStore.events`). The store records events
 * in its writes through `EventRecording`; this is the rest of the contract: appending outside a
 * write, reading in order, and the pending-delivery bookkeeping of in-process listeners.
 *
 * Delivery is at least once: a process that dies after its listener returned but before
 * `markDelivered` leaves the event pending, and another process delivers it again. The `jti`
 * identifies the redelivery.
 *
 * @example
 * const store = memoryStore();
 * await store.events?.read({ orgId: "acme", after: 0, limit: 100 }); // [{ sequence: 1, type: "user.created", … }]
 */
export interface EventOutbox {
  /**
   * Records events of organization `orgId` in a transaction of their own, for a request that
   * reports an event without writing (a POST that links an unchanged user). Resolves with them as
   * recorded; `[]` for none.
   */
  append(orgId: string, events: readonly OutboxEventInput[], options: AppendEventsOptions): Promise<readonly OutboxEvent[]>;
  /**
   * The events of one organization after a sequence number, in sequence order, at most `limit`:
   * how an ordered consumer reads (an RFC 9967 receiver's position).
   */
  read(request: ReadEventsRequest): Promise<readonly OutboxEvent[]>;
  /**
   * Leases pending events whose lease has ended — recorded by a process that died before it
   * delivered them, or whose delivery failed to be marked — to the caller until `leaseUntil`, and
   * returns them ordered by organization and sequence. Two callers never get the same event while
   * its lease lasts.
   */
  claimPending(request: ClaimPendingRequest): Promise<readonly OutboxEvent[]>;
  /**
   * Marks these events (by organization and sequence) as delivered to the in-process listeners:
   * never claimed again.
   */
  markDelivered(events: readonly OutboxEventKey[]): Promise<void>;
  /**
   * Deletes events of organization `orgId` up to sequence `through` that no in-process listener is
   * waiting for, and resolves with how many went. The caller picks `through` below every ordered
   * consumer's position (`securityEventDelivery`'s `prune` does). Sequences are never reused.
   */
  prune(orgId: string, through: number): Promise<number>;
  /**
   * The last sequence number of organization `orgId`: 0 before its first event. Where a consumer
   * that should see only new events starts.
   */
  lastSequence(orgId: string): Promise<number>;
}
