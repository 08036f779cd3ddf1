/**
 * An RFC 9967 event receiver as the analytics interface answers it (`EventReceiver`, issue 20):
 * its event URIs, and its delivery state in words an operator can act on.
 */

import type { DeliveryFailure, EventReceiver } from "./analytics-api-types.js";

const PROV = "urn:ietf:params:scim:event:prov:";

/** The kinds of change a receiver can ask for; create, put and patch take the receiver's form (RFC 9967 §2.4). */
export const EVENT_KINDS = ["create", "put", "patch", "delete", "activate", "deactivate"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The RFC 9967 URI of `kind` in `form`. */
export function eventUriOf(kind: EventKind, form: EventReceiver["form"]): string {
  return kind === "create" || kind === "put" || kind === "patch" ? `${PROV}${kind}:${form}` : `${PROV}${kind}`;
}

/** `urn:ietf:params:scim:event:prov:create:full` → `create`; the URI itself when it is not one of ours. */
export function eventKindOf(uri: string): string {
  return uri.startsWith(PROV) ? (uri.slice(PROV.length).split(":")[0] ?? uri) : uri;
}

/** What the receiver's last failure means, in plain words. */
export function failureInWords(failure: DeliveryFailure): string {
  const said = failure.description === undefined ? "" : `: “${failure.description}”`;
  if (failure.status === undefined) {
    if (failure.error === "timeout") return `It did not answer in time${said}.`;
    if (failure.error === "network") return `It could not be reached${said}.`;
    // The service's address rules refused the receiver's host: nothing was sent; it is tried again.
    if (failure.error === "address") return `Not pushed: its address is not allowed${said}.`;
    return `It refused SET ${failure.jti} (${failure.error})${said}; it was skipped.`;
  }
  if (failure.status === 400) return `It rejected SET ${failure.jti} for good (${failure.error})${said}; it was skipped.`;
  if (failure.status === 401 || failure.status === 403)
    return `It refused our credentials (HTTP ${failure.status}, ${failure.error})${said}: check its Authorization value.`;
  if (failure.status >= 500) return `It failed (HTTP ${failure.status}, ${failure.error})${said}.`;
  return `It answered HTTP ${failure.status} (${failure.error})${said}.`;
}

/** Where delivery stands, in a few words. */
export function stateInWords(receiver: EventReceiver): string {
  if (receiver.attempts > 0) return `Failing: ${receiver.attempts} attempt${receiver.attempts === 1 ? "" : "s"} in a row.`;
  if (receiver.delivery === "poll") return receiver.lastDeliveredAt === undefined ? "Has not polled yet." : "Polling.";
  return receiver.lastDeliveredAt === undefined ? "Nothing delivered yet." : "Delivering.";
}
