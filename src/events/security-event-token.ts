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

/** The resource's path relative to the service root, as the `scim` subject identifier's `uri` (RFC 9967 §2.2): `/Users/{id}`. */
function relativeUri(event: OutboxEvent): string {
  const { location } = metaOf(event.resource);
  if (location !== undefined) {
    const parts = location.split("/");
    const endpoint = parts.at(-2);
    if (endpoint) return `/${endpoint}/${event.resourceId}`;
  }
  return `/${event.resourceType}s/${event.resourceId}`;
}

/** The attribute names a notice names as changed: the resource's own, or `members` for a change of members. */
function changedAttributes(event: OutboxEvent): string[] {
  if (event.type.includes(".members.")) return ["members"];
  return Object.keys(event.resource).filter((name) => name !== "schemas" && name !== "id" && name !== "meta");
}

/**
 * The event payload of `uri` for `event` in `form` (RFC 9967 §2.4): `full` carries the resource as
 * `data`, `notice` the names of the attributes; both carry the resource's `version` when it has one.
 */
function payloadOf(event: OutboxEvent, uri: SecurityEventUri, form: SecurityEventForm): Record<string, unknown> {
  const { version } = metaOf(event.resource);
  const versioned = version === undefined ? {} : { version };
  if (uri.endsWith(":delete")) return {};
  if (uri.endsWith(":activate") || uri.endsWith(":deactivate")) return versioned;
  return form === "full" ? { data: event.resource, ...versioned } : { attributes: changedAttributes(event), ...versioned };
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
 * The claims of the SET reporting `event` (RFC 8417 §2.2): `jti` is the event's, so a receiver drops
 * a redelivery; `toe` is when the change was recorded; `sub_id` names the resource (RFC 9967 §2.2).
 */
export function securityEventClaims(event: OutboxEvent, input: SecurityEventClaimsInput): JWTPayload {
  const externalId = event.resource["externalId"];
  return {
    iss: input.issuer,
    iat: input.issuedAt,
    jti: event.jti,
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
