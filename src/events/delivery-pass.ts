/**
 * The push loop's work: a pass over the due receivers, each claimed for a lease and given one
 * bounded round of its events, pushed in order and saved after each; a failure schedules the
 * receiver's next attempt with backoff from where it stopped.
 */
import type { DeliveryProgress, EventReceiver, EventReceiverKey } from "./event-receiver-store.js";
import { type PushOutcome, pushSecurityEvent } from "./push-security-event.js";
import { backoffMs, later, type SecurityEventDeliveryState } from "./security-event-delivery-state.js";
import { signFor, uriFor } from "./sign-for-receiver.js";

/** Receivers claimed at a time. */
const CLAIM_LIMIT = 20;

/** What a delivery round, or a pass of rounds, did. */
export interface Round {
  /** SETs accepted. */
  readonly accepted: number;
  /** Whether a receiver has more to deliver than the round took. */
  readonly more: boolean;
}

/**
 * One round for `receiver`: delivers what one outbox read holds for it (`batchSize` events),
 * saving after each event, then ends its lease. Resolves with the SETs accepted and whether more
 * wait: a round is bounded, so a receiver with a long backlog does not hold a pass while the
 * others wait, and picks up in the next pass.
 */
async function deliverTo(state: SecurityEventDeliveryState, receiver: EventReceiver): Promise<Round> {
  const { outbox, receivers, batchSize, leaseMs } = state;
  let position = receiver.position;
  let attempts = receiver.attempts;
  let accepted = 0;
  let more = false;
  try {
    const events = await outbox.read({ orgId: receiver.orgId, after: position, limit: batchSize });
    for (const event of events) {
      if (state.stopping) {
        more = true;
        break;
      }
      const uri = uriFor(receiver, event);
      if (uri === undefined) {
        position = event.sequence;
        continue;
      }
      const pushed = await pushSecurityEvent(state, receiver, event, await signFor(state, receiver, event, uri));
      const outcome: PushOutcome =
        pushed.kind === "keyRefused" ? { ...pushed, kind: attempts + 1 >= state.invalidKeyAttempts ? "rejected" : "failed" } : pushed;
      if (outcome.kind === "failed") {
        attempts += 1;
        await receivers.saveProgress(receiver.orgId, receiver.id, {
          position,
          delivered: 0,
          rejected: 0,
          attempts,
          lastError: outcome.failure,
          nextAttemptAt: later(backoffMs(state, attempts)),
        });
        return { accepted, more: false };
      }
      position = event.sequence;
      attempts = 0;
      const progress: DeliveryProgress =
        outcome.kind === "accepted"
          ? { position, delivered: 1, rejected: 0, attempts, lastDeliveredAt: new Date().toISOString(), leaseUntil: later(leaseMs) }
          : { position, delivered: 0, rejected: 1, attempts, lastError: outcome.failure, leaseUntil: later(leaseMs) };
      await receivers.saveProgress(receiver.orgId, receiver.id, progress);
      if (outcome.kind === "accepted") accepted += 1;
    }
    more ||= events.length >= batchSize;
    await receivers.saveProgress(receiver.orgId, receiver.id, { position, delivered: 0, rejected: 0, attempts });
  } catch (error) {
    // The lease runs out and another pass takes the receiver up where it was saved.
    state.onError(error);
  }
  return { accepted, more };
}

/**
 * One pass: walks the due receivers once in (organization, id) order, `CLAIM_LIMIT` at a time,
 * each claim starting after the last receiver of the one before — so every due receiver gets a
 * round, none gets two, and the pass ends. It stops claiming once `stop()` is called.
 */
export async function deliveryPass(state: SecurityEventDeliveryState): Promise<Round> {
  let accepted = 0;
  let more = false;
  let after: EventReceiverKey | undefined;
  while (!state.stopping) {
    const due = await state.receivers.claimDue({
      now: new Date().toISOString(),
      leaseUntil: later(state.leaseMs),
      limit: CLAIM_LIMIT,
      ...(after === undefined ? {} : { after }),
    });
    const last = due.at(-1);
    if (last === undefined) break;
    // Side by side: a receiver that times out holds up only itself.
    for (const round of await Promise.all(due.map((receiver) => deliverTo(state, receiver)))) {
      accepted += round.accepted;
      more ||= round.more;
    }
    if (due.length < CLAIM_LIMIT) break;
    after = { orgId: last.orgId, id: last.id };
  }
  return { accepted, more };
}
