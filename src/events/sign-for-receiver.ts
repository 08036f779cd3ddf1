/**
 * Which of an organization's events a receiver gets, under which RFC 9967 URI, and the SET of one
 * event signed for it with the organization's key.
 */
import type { OutboxEvent } from "../store/event-outbox.js";
import type { EventReceiver } from "./event-receiver-store.js";
import type { SecurityEventDeliveryState } from "./security-event-delivery-state.js";
import { securityEventClaims, signSecurityEvent } from "./security-event-token.js";
import { securityEventUriOf } from "./security-event-uris.js";

/** The URI `receiver` gets `event` under; undefined when it does not get it. */
export function uriFor(receiver: EventReceiver, event: OutboxEvent) {
  const uri = securityEventUriOf(event, receiver.form);
  return uri !== undefined && (receiver.events.length === 0 || receiver.events.includes(uri)) ? uri : undefined;
}

/** The SET of `event` for `receiver`, signed with its organization's key. */
export async function signFor(
  state: SecurityEventDeliveryState,
  receiver: EventReceiver,
  event: OutboxEvent,
  uri: NonNullable<ReturnType<typeof uriFor>>,
): Promise<string> {
  const key = await state.keys.signingKey(receiver.orgId);
  const claims = securityEventClaims(event, {
    issuer: state.issuer(receiver.orgId),
    audience: receiver.audience,
    uri,
    form: receiver.form,
    issuedAt: Math.floor(Date.now() / 1000),
  });
  return signSecurityEvent(claims, key);
}
