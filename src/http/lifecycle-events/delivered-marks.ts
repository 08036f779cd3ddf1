/**
 * Marking delivered, in batches (issue 20): after a write's events reached the in-process listener,
 * the router notes them here instead of running a transaction of its own per write. One
 * `EventOutbox.markDelivered` runs at a time, with everything noted since the last began, so the
 * busier the writer, the larger the batch. A process that dies before the mark leaves the events
 * pending: another process delivers them again after their lease, as for a death before delivery
 * (at least once; the `jti` names the redelivery).
 */
import type { EventOutbox, OutboxEventKey } from "../../store/event-outbox.js";

/** Delivered events waiting to be marked. */
export interface DeliveredMarks {
  /** Queues `events` to be marked delivered soon; never throws, failures go to the `onError` given. */
  note(events: readonly OutboxEventKey[]): void;
  /** Resolves once everything noted before the call has been marked (or failed to be). */
  flush(): Promise<void>;
}

/** Batches for `outbox`; a failed batch goes to `onError`, and its events are delivered again later. */
export function deliveredMarks(outbox: EventOutbox, onError: (error: unknown) => void): DeliveredMarks {
  let noted: OutboxEventKey[] = [];
  let running: Promise<void> | undefined;

  const drain = async (): Promise<void> => {
    // A turn of the event loop first, so the deliveries of one tick share a statement.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (noted.length > 0) {
      const batch = noted;
      noted = [];
      try {
        await outbox.markDelivered(batch);
      } catch (error) {
        onError(error);
      }
    }
    running = undefined;
  };

  return {
    note(events) {
      if (events.length === 0) return;
      noted.push(...events);
      running ??= drain();
    },
    flush: () => running ?? Promise.resolve(),
  };
}
