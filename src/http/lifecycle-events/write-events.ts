/**
 * A write's lifecycle events on their way to the host (issue 20): recorded by the store in the
 * write's transaction when it has an outbox (`ResourceStore.events`), delivered to `onEvent` from
 * what was recorded once the write is done, then marked delivered. Without an outbox, delivered
 * straight from what the write returned, as before.
 */
import type { EventOutbox, EventRecording, OutboxEvent, OutboxEventInput } from "../../store/event-outbox.js";
import type { DeliveredMarks } from "./delivered-marks.js";
import type { ScimEvent, ScimWriteMethod } from "./scim-event.js";

/** How the router delivers events; shared by every write of one router. */
export interface EventDelivery {
  /** The store's outbox, when it has one. */
  readonly outbox: EventOutbox | undefined;
  /** Delivers one event to the listener; never throws (the router reports listener failures). */
  readonly emit: (event: ScimEvent) => Promise<void>;
  /** Whether there is a listener: without one, events are recorded as delivered already. */
  readonly listening: boolean;
  /** How long the writing process keeps the events before another may claim them (`EventRecording.leaseUntil`). */
  readonly leaseMs: number;
  /** Receives a failure to mark events delivered: they are then delivered again, later. */
  readonly onError: (error: unknown) => void;
  /**
   * Where delivered events wait to be marked in batches (`deliveredMarks`); without it, each
   * delivery marks its own events before it resolves (recovery, which claims in batches already).
   */
  readonly marks?: DeliveredMarks;
}

/** One write's events: what to attach to the store request, and what to call once it returned. */
export interface WriteEvents<R> {
  /** For the request's `events`; undefined without an outbox. */
  readonly recording: EventRecording<R> | undefined;
  /** Delivers the events of the write that produced `result` (`undefined`: it did nothing). */
  deliver(result: R | undefined): Promise<void>;
}

/** The input the store records for `event`. */
export function outboxInputOf(event: ScimEvent): OutboxEventInput {
  return {
    jti: event.jti,
    type: event.type,
    resourceType: event.resourceType,
    resourceId: event.id,
    resource: event.resource,
    ...(event.memberIds ? { memberIds: event.memberIds } : {}),
    ...(event.method ? { method: event.method } : {}),
  };
}

function isWriteMethod(method: string | undefined): method is ScimWriteMethod {
  return method === "POST" || method === "PUT" || method === "PATCH" || method === "DELETE";
}

/** The event a listener receives for a recorded one. */
export function scimEventOf(recorded: OutboxEvent): ScimEvent {
  return {
    type: recorded.type as ScimEvent["type"],
    orgId: recorded.orgId,
    resourceType: recorded.resourceType,
    id: recorded.resourceId,
    resource: recorded.resource,
    ...(recorded.memberIds ? { memberIds: recorded.memberIds } : {}),
    jti: recorded.jti,
    sequence: recorded.sequence,
    ...(isWriteMethod(recorded.method) ? { method: recorded.method } : {}),
  };
}

/** Delivers recorded events in order, then marks them delivered. */
export async function deliverRecorded(delivery: EventDelivery, recorded: readonly OutboxEvent[]): Promise<void> {
  if (recorded.length === 0) return;
  for (const event of recorded) await delivery.emit(scimEventOf(event));
  if (!delivery.listening || !delivery.outbox) return;
  if (delivery.marks) {
    delivery.marks.note(recorded);
    return;
  }
  try {
    await delivery.outbox.markDelivered(recorded);
  } catch (error) {
    delivery.onError(error);
  }
}

function leaseUntil(delivery: EventDelivery): string {
  return new Date(Date.now() + delivery.leaseMs).toISOString();
}

/** The events of one write, built from its result by `build`. */
export function writeEvents<R>(delivery: EventDelivery, build: (result: R) => readonly ScimEvent[]): WriteEvents<R> {
  if (!delivery.outbox) {
    return {
      recording: undefined,
      async deliver(result) {
        // Nobody to hear them and nowhere to keep them: not built, each would render the resource.
        if (result === undefined || !delivery.listening) return;
        for (const event of build(result)) await delivery.emit(event);
      },
    };
  }
  let recorded: readonly OutboxEvent[] = [];
  return {
    recording: {
      build: (result) => build(result).map(outboxInputOf),
      pending: delivery.listening,
      leaseUntil: leaseUntil(delivery),
      committed: (events) => {
        recorded = events;
      },
    },
    deliver: () => deliverRecorded(delivery, recorded),
  };
}

/**
 * Records and delivers events that no store write carries (a POST that links a user it leaves
 * unchanged still reports `linked`).
 */
export async function appendAndDeliver(delivery: EventDelivery, orgId: string, events: readonly ScimEvent[]): Promise<void> {
  if (events.length === 0) return;
  if (!delivery.outbox) {
    if (delivery.listening) for (const event of events) await delivery.emit(event);
    return;
  }
  const recorded = await delivery.outbox.append(orgId, events.map(outboxInputOf), {
    pending: delivery.listening,
    leaseUntil: leaseUntil(delivery),
  });
  await deliverRecorded(delivery, recorded);
}
