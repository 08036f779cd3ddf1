/**
 * A recorded lifecycle event as a Security Event Token (RFC 8417) of the SCIM profile (RFC 9967):
 * its claims, and the signed JWS in compact form.
 */
import { SignJWT, type JWTPayload } from "jose";
import type { ScimObject } from "../scim/schema/normalize-value.js";
import type { OutboxEvent } from "../store/event-outbox.js";
import { SECURITY_EVENT_ALGORITHM, type SigningKey } from "./event-signing-keys.js";
import type { SecurityEventForm, SecurityEventUri } from "./security-event-uris.js";

/** The `typ` header of a SET (RFC 8417 §2.3). */
export const SECURITY_EVENT_TOKEN_TYPE = "secevent+jwt";

function metaOf(resource: ScimObject): { readonly location?: string; readonly version?: string } {
  const meta = resource["meta"];
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return {};
  const { location, version } = meta as Record<string, unknown>;
  return {
    ...(typeof location === "string" ? { location } : {}),
    ...(typeof version === "string" ? { version } : {}),
  };
}

/** The resource's path relative to the service's base URI, as the `scim` subject identifier's `uri` (RFC 9967 §2.1, MUST): `/Users/{id}`. */
function relativeUri(event: OutboxEvent): string {
  const { location } = metaOf(event.resource);
  if (location !== undefined) {
    const parts = location.split("/");
    const endpoint = parts.at(-2);
    if (endpoint) return `/${endpoint}/${event.resourceId}`;
  }
  return `/${event.resourceType}s/${event.resourceId}`;
}

/**
 * The attribute names a notice lists (RFC 9967 §2.2 `attributes`, §2.4 "the set of attributes
 * created or modified"): `members` for a change of members; otherwise the resource's attributes
 * but `schemas` and `meta`, and `id` only for a create — the service assigned it then (§2.4.1,
 * Figure 5 lists it; Figure 9, a put, does not). The outbox does not record which attributes a
 * PUT or PATCH changed, so those list every attribute the resource has: a superset of what was
 * added or revised, without one that was removed.
 */
function noticeAttributes(event: OutboxEvent, uri: SecurityEventUri): string[] {
  if (event.type.includes(".members.")) return ["members"];
  const created = uri.includes(":prov:create:");
  return Object.keys(event.resource).filter((name) => name !== "schemas" && name !== "meta" && (created || name !== "id"));
}

/**
 * The event payload of `uri` for `event` in `form`. RFC 9967 §2.4: a create, put or patch carries
 * exactly one of `data` (`full`: the resource's final representation, as a response returns it)
 * and `attributes` (`notice`: names, no values); §2.2 `version` is the resource's ETag, on every
 * event but a delete, which "has no payload attributes" (§2.4.4).
 */
function payloadOf(event: OutboxEvent, uri: SecurityEventUri, form: SecurityEventForm): Record<string, unknown> {
  const { version } = metaOf(event.resource);
  const versioned = version === undefined ? {} : { version };
  if (uri.endsWith(":delete")) return {};
  if (uri.endsWith(":activate") || uri.endsWith(":deactivate")) return versioned;
  return form === "full" ? { data: event.resource, ...versioned } : { attributes: noticeAttributes(event, uri), ...versioned };
}

/** What the claims are made of besides the event. */
export interface SecurityEventClaimsInput {
  /** The `iss` claim: the organization's SCIM service, e.g. its base URL. */
  readonly issuer: string;
  /** The `aud` claim: the receiver. */
  readonly audience: string;
  readonly uri: SecurityEventUri;
  readonly form: SecurityEventForm;
  /** Seconds since the epoch for `iat`. */
  readonly issuedAt: number;
}

/**
 * The claims of the SET reporting `event` (RFC 8417 §2.2 with RFC 9967 §2.1-2.2): `iss`, `iat`,
 * `aud`; `jti` is the event's, so a receiver drops a redelivery; `txn` is the event's too — RFC 9967
 * §2.2 requires it for replication and co-ordinated provisioning and keeps it the same across
 * retransmissions and receivers (the outbox has no id for a write that recorded several events, so
 * each event is its own transaction); `toe` is when the change was recorded; `sub_id` (format
 * `scim`, `uri` relative to the base URL, `externalId` when the resource has one) names the
 * resource, and there is no `sub` (RFC 9967 §2.1: MUST NOT) and no `exp`.
 */
export function securityEventClaims(event: OutboxEvent, input: SecurityEventClaimsInput): JWTPayload {
  const externalId = event.resource["externalId"];
  return {
    iss: input.issuer,
    iat: input.issuedAt,
    jti: event.jti,
    txn: event.jti,
    aud: input.audience,
    toe: Math.floor(Date.parse(event.recordedAt) / 1000),
    sub_id: {
      format: "scim",
      uri: relativeUri(event),
      ...(typeof externalId === "string" ? { externalId } : {}),
    },
    events: { [input.uri]: payloadOf(event, input.uri, input.form) },
  };
}

/** Signs `claims` as a SET: JWS compact serialization with `typ: secevent+jwt` and the key's `kid`. */
export function signSecurityEvent(claims: JWTPayload, key: SigningKey): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: SECURITY_EVENT_ALGORITHM, kid: key.kid, typ: SECURITY_EVENT_TOKEN_TYPE })
    .sign(key.key);
}
