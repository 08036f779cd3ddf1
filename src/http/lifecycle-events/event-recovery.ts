/**
 * Recovering events a dead process recorded but never delivered (issue 20): the router's listener
 * claims the pending events whose lease has ended (`EventOutbox.claimPending`), delivers them in
 * order and marks them delivered, every `intervalMs`.
 */
import type { EventOutbox } from "../../store/event-outbox.js";
import { deliverRecorded } from "./write-events.js";
import type { ScimEvent } from "./scim-event.js";

/** Options of the router's recovery (`ScimRouterOptions.eventRecovery`). */
export interface EventRecoveryOptions {
  /**
   * How long a process has to deliver the events it recorded before another process may deliver
   * them, in milliseconds; the same lease covers a recovered batch. Longer than the slowest
   * listener, or an event may be delivered twice. Default 60,000.
   */
  readonly leaseMs?: number;
  /** How often to look for pending events, in milliseconds. Default 10,000. */
  readonly intervalMs?: number;
  /** Most events to claim at once. Default 100. */
  readonly batchSize?: number;
}

/** What `recoverPendingEvents` needs. */
export interface RecoverPendingEventsOptions {
  /** The store's outbox. */
  readonly outbox: EventOutbox;
  /** Delivers one event; never throws. */
  readonly emit: (event: ScimEvent) => Promise<void>;
  /** Receives a failure to mark events delivered. */
  readonly onError: (error: unknown) => void;
  /** As `EventRecoveryOptions.leaseMs`. */
  readonly leaseMs: number;
  /** As `EventRecoveryOptions.batchSize`. */
  readonly batchSize: number;
}

/**
 * Delivers every pending event whose lease has ended, batch by batch, and resolves with how many it
 * delivered. What the router runs on its timer; a script can run it once after a crash.
 *
 * @example await recoverPendingEvents({ outbox: store.events, emit, onError: console.error, leaseMs: 60_000, batchSize: 100 })
 */
export async function recoverPendingEvents(options: RecoverPendingEventsOptions): Promise<number> {
  const delivery = { outbox: options.outbox, emit: options.emit, listening: true, leaseMs: options.leaseMs, onError: options.onError };
  let delivered = 0;
  for (;;) {
    const now = new Date();
    const claimed = await options.outbox.claimPending({
      limit: options.batchSize,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + options.leaseMs).toISOString(),
    });
    if (claimed.length === 0) return delivered;
    await deliverRecorded(delivery, claimed);
    delivered += claimed.length;
    if (claimed.length < options.batchSize) return delivered;
  }
}

/**
 * Runs `recoverPendingEvents` every `intervalMs` on an unref'd timer (it never keeps the
 * process alive), one run at a time; failures go to `onError`. Returns a function that stops it.
 */
export function startEventRecovery(options: RecoverPendingEventsOptions & { readonly intervalMs: number }): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = async (): Promise<void> => {
    try {
      await recoverPendingEvents(options);
    } catch (error) {
      options.onError(error);
    }
    if (stopped) return;
    timer = setTimeout(() => void run(), options.intervalMs);
    timer.unref();
  };
  // The first pass after one interval, not at once: a dead process's events wait out their lease
  // anyway, and a router being built (tests, a host starting) is not met by a query of its own.
  timer = setTimeout(() => void run(), options.intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
