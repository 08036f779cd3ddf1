/**
 * The SCIM provisioning event URIs of RFC 9967 §2.4 and how scimkit's lifecycle events map onto
 * them: a create, put or patch in `full` form (the resource) or `notice` form (what changed, no
 * values); a delete; an activation and a deactivation.
 */
import type { OutboxEvent } from "../store/event-outbox.js";

/** Whether a receiver gets resources (`full`) or only what changed (`notice`); RFC 9967 §2.4. */
export type SecurityEventForm = "full" | "notice";

const PROV = "urn:ietf:params:scim:event:prov";

/** Every event URI scimkit sends, in both forms where the RFC defines two. */
export const SECURITY_EVENT_URIS = [
  `${PROV}:create:full`,
  `${PROV}:create:notice`,
  `${PROV}:put:full`,
  `${PROV}:put:notice`,
  `${PROV}:patch:full`,
  `${PROV}:patch:notice`,
  `${PROV}:delete`,
  `${PROV}:activate`,
  `${PROV}:deactivate`,
] as const;

/** One of `SECURITY_EVENT_URIS`. */
export type SecurityEventUri = (typeof SECURITY_EVENT_URIS)[number];

/** Whether `value` is an event URI scimkit sends. */
export function isSecurityEventUri(value: string): value is SecurityEventUri {
  return (SECURITY_EVENT_URIS as readonly string[]).includes(value);
}

/**
 * The RFC 9967 event URI of a recorded event in `form`, or `undefined` for an event the RFC has no
 * URI for (`members.ignored`: nothing changed). A change of members is a patch of the group
 * whatever the request (RFC 7644 §3.5.2 models it so); `linked` replaced the user as a PUT does.
 */
export function securityEventUriOf(event: Pick<OutboxEvent, "type" | "method">, form: SecurityEventForm): SecurityEventUri | undefined {
  const action = event.type.slice(event.type.indexOf(".") + 1);
  switch (action) {
    case "created":
      return `${PROV}:create:${form}`;
    case "linked":
      return `${PROV}:put:${form}`;
    case "updated":
      return event.method === "PUT" ? `${PROV}:put:${form}` : `${PROV}:patch:${form}`;
    case "members.added":
    case "members.removed":
      return `${PROV}:patch:${form}`;
    case "deleted":
      return `${PROV}:delete`;
    case "activated":
      return `${PROV}:activate`;
    case "deactivated":
      return `${PROV}:deactivate`;
    default:
      return undefined;
  }
}
