/**
 * Poll delivery (RFC 8936): a poll receiver's acknowledgements move its position past the prefix
 * of events it has acknowledged, and the answer holds the next SETs up to the poll bounds; the
 * receiver proves itself with the `Authorization` value it registered, kept as a digest.
 */
import { hashToken, sameTokenHash, unmatchableTokenHash } from "../auth/hash-token.js";
import type { DeliveryFailure } from "./event-receiver-store.js";
import type { SecurityEventDeliveryState } from "./security-event-delivery-state.js";
import { signFor, uriFor } from "./sign-for-receiver.js";

/** A poll (RFC 8936 §2.4): what the receiver acknowledges and asks for. */
export interface PollRequest {
  /** The `jti`s of SETs it has received and keeps. */
  readonly ack?: readonly string[];
  /** SETs it received and refuses, by `jti`, with why (RFC 8936 §2.4.4): acknowledged too, and kept as the last failure. */
  readonly setErrs?: Readonly<Record<string, { readonly err: string; readonly description?: string }>>;
  /** Most SETs to return; 0 only acknowledges. Default 100. */
  readonly maxEvents?: number;
}

/** The answer to a poll (RFC 8936 §2.5). */
export interface PollResponse {
  /** SETs by `jti`, oldest first: the ones not acknowledged yet, again until they are. */
  readonly sets: Readonly<Record<string, string>>;
  /** Whether more are waiting beyond `maxEvents`. */
  readonly moreAvailable: boolean;
}

/** `SecurityEventDelivery.poll`: acknowledgements applied in order, then the next SETs. */
export async function pollSecurityEvents(
  state: SecurityEventDeliveryState,
  orgId: string,
  id: string,
  request: PollRequest,
): Promise<PollResponse | undefined> {
  const { outbox, receivers, batchSize, pollMaxEvents, pollMaxBytes } = state;
  const receiver = await receivers.get(orgId, id);
  if (receiver?.delivery !== "poll") return undefined;
  // RFC 8936 §2.4: the transmitter may return fewer than `maxEvents`; it never returns more than its bound.
  const maxEvents = Math.min(pollMaxEvents, Math.max(0, Math.floor(request.maxEvents ?? pollMaxEvents)));
  const errors = request.setErrs ?? {};
  const acknowledged = new Set([...(request.ack ?? []), ...Object.keys(errors)]);
  let position = receiver.position;
  let delivered = 0;
  let rejected = 0;
  let lastError: DeliveryFailure | undefined;
  // RFC 8936 §2.4: acknowledged SETs are not sent again. The position moves only past a prefix
  // of acknowledged (or unwanted) events, so one left out is sent again, and the order holds.
  acknowledging: while (acknowledged.size > 0) {
    const events = await outbox.read({ orgId, after: position, limit: batchSize });
    if (events.length === 0) break;
    for (const event of events) {
      if (uriFor(receiver, event) !== undefined) {
        if (!acknowledged.has(event.jti)) break acknowledging;
        const error = errors[event.jti];
        if (error) {
          rejected += 1;
          lastError = {
            at: new Date().toISOString(),
            jti: event.jti,
            error: error.err,
            ...(error.description ? { description: error.description } : {}),
          };
        } else {
          delivered += 1;
        }
      }
      position = event.sequence;
    }
  }
  if (position !== receiver.position) {
    await receivers.saveProgress(orgId, id, {
      position,
      delivered,
      rejected,
      attempts: 0,
      ...(delivered > 0 ? { lastDeliveredAt: new Date().toISOString() } : {}),
      ...(lastError ? { lastError } : {}),
    });
  }
  const sets: Record<string, string> = {};
  let count = 0;
  let bytes = 0;
  let after = position;
  let moreAvailable = false;
  collecting: for (;;) {
    const events = await outbox.read({ orgId, after, limit: batchSize });
    if (events.length === 0) break;
    for (const event of events) {
      after = event.sequence;
      const uri = uriFor(receiver, event);
      if (uri === undefined) continue;
      if (count >= maxEvents) {
        moreAvailable = true;
        break collecting;
      }
      const token = await signFor(state, receiver, event, uri);
      // At least one SET per answer, however large, or a receiver could never move on.
      if (count > 0 && bytes + token.length > pollMaxBytes) {
        moreAvailable = true;
        break collecting;
      }
      sets[event.jti] = token;
      bytes += token.length;
      count += 1;
    }
  }
  return { sets, moreAvailable };
}

/** `SecurityEventDelivery.authorizesPoll`: the `Authorization` value compared as digests, in constant time. */
export async function authorizesPoll(
  state: SecurityEventDeliveryState,
  orgId: string,
  id: string,
  authorization: string | undefined,
): Promise<boolean> {
  const receiver = await state.receivers.get(orgId, id);
  const expected = receiver?.delivery === "poll" && receiver.authorization ? receiver.authorization : undefined;
  const given = hashToken(authorization ?? "");
  // A receiver registered before digests were kept holds the value itself: compared as a digest too.
  const stored = expected === undefined ? unmatchableTokenHash : /^[0-9a-f]{64}$/.test(expected) ? expected : hashToken(expected);
  return sameTokenHash(given, stored) && expected !== undefined && authorization !== undefined;
}
