/**
 * An RFC 9967 event receiver as the operator API (and the `scimkit receivers` command) shows it:
 * built field by field, so the `Authorization` value it was registered with — a secret the
 * receiver or we check — never reaches an answer, a log line or the audit trail.
 */
import type { EventReceiver } from "scimkit/events";

/** The receiver resource, as the `EventReceiver` schema of the operator API describes it. */
export interface RenderedEventReceiver {
  readonly id: string;
  readonly organizationId: string;
  readonly url: string;
  readonly delivery: EventReceiver["delivery"];
  readonly events: readonly string[];
  readonly form: EventReceiver["form"];
  readonly audience: string;
  /** Whether an `Authorization` value was registered (it is never shown). */
  readonly hasAuthorization: boolean;
  readonly label?: string;
  readonly createdAt: string;
  /** Poll receivers: where they poll, when the caller knows it. */
  readonly pollUrl?: string;
  readonly position: number;
  readonly attempts: number;
  readonly nextAttemptAt?: string;
  readonly lastError?: NonNullable<EventReceiver["lastError"]>;
  readonly lastDeliveredAt?: string;
  readonly delivered: number;
  readonly rejected: number;
  readonly dropped: number;
}

/**
 * `receiver` without its secret; `pollUrl` is shown for a poll receiver only.
 *
 * @example renderEventReceiver(receiver, "https://scim.example.com/scim/Organizations/acme/events/poll/0190…")
 */
export function renderEventReceiver(receiver: EventReceiver, pollUrl?: string): RenderedEventReceiver {
  const failure = receiver.lastError;
  return {
    id: receiver.id,
    organizationId: receiver.orgId,
    url: receiver.url,
    delivery: receiver.delivery,
    events: [...receiver.events],
    form: receiver.form,
    audience: receiver.audience,
    hasAuthorization: receiver.authorization !== undefined && receiver.authorization !== "",
    ...(receiver.label === undefined ? {} : { label: receiver.label }),
    createdAt: receiver.createdAt,
    ...(receiver.delivery === "poll" && pollUrl !== undefined ? { pollUrl } : {}),
    position: receiver.position,
    attempts: receiver.attempts,
    ...(receiver.nextAttemptAt === undefined ? {} : { nextAttemptAt: receiver.nextAttemptAt }),
    // Picked one by one too: a store's failure record may carry more than the interface says.
    ...(failure === undefined
      ? {}
      : {
          lastError: {
            at: failure.at,
            jti: failure.jti,
            ...(failure.status === undefined ? {} : { status: failure.status }),
            error: failure.error,
            ...(failure.description === undefined ? {} : { description: failure.description }),
          },
        }),
    ...(receiver.lastDeliveredAt === undefined ? {} : { lastDeliveredAt: receiver.lastDeliveredAt }),
    delivered: receiver.delivered,
    rejected: receiver.rejected,
    dropped: receiver.dropped,
  };
}
