/**
 * Pruning an organization's outbox for its receivers: what every receiver was given goes, and so
 * does what lies beyond the backlog bound, the receivers still behind it moved past it with a
 * `dropped` failure that says so.
 */
import type { SecurityEventDeliveryState } from "./security-event-delivery-state.js";

/**
 * The last event of `orgId` beyond the backlog bound, at or after `from`: the newest that is
 * over `backlogMaxEvents` back from `last` or older than `backlogMaxAgeMs`; `from` when none is.
 * Reads forward from `from` only while events are too old, so at most `backlogMaxEvents` events.
 */
async function backlogBound(state: SecurityEventDeliveryState, orgId: string, from: number, last: number): Promise<number> {
  const { outbox, batchSize, backlogMaxEvents, backlogMaxAgeMs } = state;
  let bound = Math.max(from, last - backlogMaxEvents);
  const oldest = new Date(Date.now() - backlogMaxAgeMs).toISOString();
  for (;;) {
    const events = await outbox.read({ orgId, after: bound, limit: batchSize });
    for (const event of events) {
      if (event.recordedAt >= oldest) return bound;
      bound = event.sequence;
    }
    if (events.length < batchSize) return bound;
  }
}

/** `SecurityEventDelivery.prune`: the events every receiver was given, and those beyond the backlog bound. */
export async function pruneOutbox(state: SecurityEventDeliveryState, orgId: string): Promise<number> {
  const { outbox, receivers, backlogMaxEvents, backlogMaxAgeMs } = state;
  const all = await receivers.list(orgId);
  const last = await outbox.lastSequence(orgId);
  const lowest = Math.min(last, ...all.map((receiver) => receiver.position));
  const through = await backlogBound(state, orgId, lowest, last);
  const behind = all.filter((receiver) => receiver.position < through);
  if (behind.length > 0) {
    const [lastDropped] = await outbox.read({ orgId, after: through - 1, limit: 1 });
    const at = new Date().toISOString();
    for (const receiver of behind) {
      await receivers.skip(orgId, receiver.id, {
        through,
        failure: {
          at,
          jti: lastDropped?.jti ?? "",
          error: "dropped",
          description: `${through - receiver.position} event(s) up to sequence ${through} were dropped unsent: the receiver lagged beyond the backlog kept for it (the newest ${backlogMaxEvents} events, none older than ${Math.round(backlogMaxAgeMs / 3_600_000)} h).`,
        },
      });
    }
  }
  return outbox.prune(orgId, through);
}
