import type { OutboxEvent } from "../store/event-outbox.js";
import type { DeliveryFailure, EventReceiver } from "./event-receiver-store.js";
import { pushFailureOfAnswer, pushFailureOfError } from "./push-failure.js";
import type { SecurityEventDeliveryState } from "./security-event-delivery-state.js";

/** The outcome of one push. */
export type PushOutcome =
  | { readonly kind: "accepted" }
  | { readonly kind: "rejected" | "failed" | "keyRefused"; readonly failure: DeliveryFailure };

/**
 * RFC 8935 §2: POST the SET; 2xx is accepted; 400 is a rejection of this SET for good. The
 * receiver's URL is the tenant's: the push goes only where the address policy lets it, and what
 * is kept of a failure is `push-failure.ts`'s words, never the receiver's.
 */
export async function pushSecurityEvent(
  state: SecurityEventDeliveryState,
  receiver: EventReceiver,
  event: OutboxEvent,
  token: string,
): Promise<PushOutcome> {
  const { requestTimeoutMs } = state;
  const at = new Date().toISOString();
  let answer: { readonly status: number; readonly body: string };
  try {
    answer = await state.post(new URL(receiver.url), {
      headers: {
        "Content-Type": "application/secevent+jwt",
        Accept: "application/json",
        ...(receiver.authorization ? { Authorization: receiver.authorization } : {}),
      },
      body: token,
      signal: AbortSignal.timeout(requestTimeoutMs),
      // An RFC 8935 §2.4 error object is a few hundred bytes; a larger body is not one.
      maxResponseBytes: 8192,
    });
  } catch (error) {
    return { kind: "failed", failure: { at, jti: event.jti, ...pushFailureOfError(error, requestTimeoutMs) } };
  }
  if (answer.status >= 200 && answer.status < 300) return { kind: "accepted" };
  const failure: DeliveryFailure = { at, jti: event.jti, ...pushFailureOfAnswer(answer.status, answer.body) };
  // RFC 8935 §2.4: a 400 says this SET is wrong (wrong audience, issuer, …); sending it again
  // would fail the same way and hold every later event back. Anything else may pass later, and
  // so may `invalid_key` for a while (`invalidKeyAttempts`).
  if (answer.status !== 400) return { kind: "failed", failure };
  return { kind: failure.error === "invalid_key" ? "keyRefused" : "rejected", failure };
}
