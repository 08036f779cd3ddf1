/**
 * The SETs scimkit signs, against the text of RFC 9967 (read in draft-ietf-scim-events-16, the
 * draft that became it; section numbers are the draft's), RFC 8417 and the `securityEvents` block
 * of `/ServiceProviderConfig`: one test per requirement, naming its section. Each SET is signed and
 * verified against the organization's JWKS, so what is checked is what a receiver decodes.
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from "jose";
import { describe, expect, it } from "vitest";
import { serviceProviderConfig } from "../http/discovery/discovery-documents.js";
import type { ScimObject } from "../scim/schema/normalize-value.js";
import type { OutboxEvent } from "../store/event-outbox.js";
import { eventSigningKeys } from "./event-signing-keys.js";
import { memorySigningKeyRepository } from "./memory-event-receiver-store.js";
import { securityEventClaims, signSecurityEvent } from "./security-event-token.js";
import { SECURITY_EVENT_URIS, securityEventUriOf, type SecurityEventForm } from "./security-event-uris.js";

const PROV = "urn:ietf:params:scim:event:prov";
const ISSUER = "https://scim.example.com/scim/Organizations/acme/v2";
const AUDIENCE = "https://receiver.example.com/";
const USER_ID = "2819c223-7f76-453a-919d-413861904646";
const VERSION = 'W/"a330bc54f0671c9"';

const user: ScimObject = {
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  id: USER_ID,
  externalId: "jdoe",
  userName: "jdoe",
  name: { givenName: "John", familyName: "Doe" },
  meta: { resourceType: "User", location: `${ISSUER}/Users/${USER_ID}`, version: VERSION },
};
const group: ScimObject = {
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
  id: "g1",
  displayName: "crmUsers",
  meta: { resourceType: "Group", location: `${ISSUER}/Groups/g1`, version: VERSION },
};

function event(type: string, method: string | undefined, resource: ScimObject = user): OutboxEvent {
  return {
    orgId: "acme",
    sequence: 1,
    recordedAt: "2030-01-01T00:00:00.000Z",
    jti: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    type,
    resourceType: resource === group ? "Group" : "User",
    resourceId: String(resource["id"]),
    resource,
    ...(method ? { method } : {}),
  };
}

const keys = eventSigningKeys(memorySigningKeyRepository());

/** Signs the SET of `recorded` in `form` and decodes it as a receiver would: verified against the JWKS. */
async function set(recorded: OutboxEvent, form: SecurityEventForm): Promise<{ claims: JWTPayload; header: Record<string, unknown> }> {
  const uri = securityEventUriOf(recorded, form);
  if (!uri) throw new Error(`no URI for ${recorded.type}`);
  const claims = securityEventClaims(recorded, { issuer: ISSUER, audience: AUDIENCE, uri, form, issuedAt: 1_900_000_000 });
  const token = await signSecurityEvent(claims, await keys.signingKey("acme"));
  const jwks = createLocalJWKSet({ keys: [...(await keys.jwks("acme")).keys] });
  const { payload } = await jwtVerify(token, jwks, { issuer: ISSUER, audience: AUDIENCE, typ: "secevent+jwt", algorithms: ["ES256"] });
  return { claims: payload, header: decodeProtectedHeader(token) as Record<string, unknown> };
}

/** The one event payload of a SET, under its one URI. */
function only(claims: JWTPayload): [string, Record<string, unknown>] {
  const entries = Object.entries(claims["events"] as Record<string, Record<string, unknown>>);
  expect(entries).toHaveLength(1);
  return entries[0] as [string, Record<string, unknown>];
}

describe("event URIs", () => {
  it("are the provisioning URIs of the RFC 9967 §7.4 registry, byte for byte (§2.4.1-§2.4.6)", () => {
    expect(SECURITY_EVENT_URIS).toEqual([
      "urn:ietf:params:scim:event:prov:create:full",
      "urn:ietf:params:scim:event:prov:create:notice",
      "urn:ietf:params:scim:event:prov:put:full",
      "urn:ietf:params:scim:event:prov:put:notice",
      "urn:ietf:params:scim:event:prov:patch:full",
      "urn:ietf:params:scim:event:prov:patch:notice",
      "urn:ietf:params:scim:event:prov:delete",
      "urn:ietf:params:scim:event:prov:activate",
      "urn:ietf:params:scim:event:prov:deactivate",
    ]);
  });

  it("has no feed (§2.3) or misc:asyncresp (§2.5.1.3) URI: scimkit keeps no feeds and runs no request asynchronously", () => {
    expect(SECURITY_EVENT_URIS.filter((uri) => !uri.startsWith(`${PROV}:`))).toEqual([]);
  });

  it("names a PUT `put`, a PATCH and a change of members `patch`, both forms (§2.4.2, §2.4.3)", () => {
    for (const form of ["full", "notice"] as const) {
      expect(securityEventUriOf(event("user.created", "POST"), form)).toBe(`${PROV}:create:${form}`);
      expect(securityEventUriOf(event("user.updated", "PUT"), form)).toBe(`${PROV}:put:${form}`);
      expect(securityEventUriOf(event("user.updated", "PATCH"), form)).toBe(`${PROV}:patch:${form}`);
      expect(securityEventUriOf(event("user.linked", "POST"), form)).toBe(`${PROV}:put:${form}`);
      expect(securityEventUriOf(event("group.members.added", "PUT", group), form)).toBe(`${PROV}:patch:${form}`);
      expect(securityEventUriOf(event("group.members.removed", "PATCH", group), form)).toBe(`${PROV}:patch:${form}`);
    }
  });

  it("gives delete, activate and deactivate no full/notice qualifier (§2.4.4: SHALL NOT; §2.4.5, §2.4.6)", () => {
    for (const form of ["full", "notice"] as const) {
      expect(securityEventUriOf(event("user.deleted", "DELETE"), form)).toBe(`${PROV}:delete`);
      expect(securityEventUriOf(event("user.activated", "PATCH"), form)).toBe(`${PROV}:activate`);
      expect(securityEventUriOf(event("user.deactivated", "PATCH"), form)).toBe(`${PROV}:deactivate`);
    }
    expect(securityEventUriOf(event("group.members.ignored", "PATCH", group), "full")).toBeUndefined();
  });
});

describe("top-level claims", () => {
  it("has the RFC 8417 §2.2 claims iss, iat, jti, aud, toe and events, and no exp", async () => {
    const { claims } = await set(event("user.created", "POST"), "notice");
    expect(claims).toMatchObject({
      iss: ISSUER,
      iat: 1_900_000_000,
      jti: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
      aud: AUDIENCE,
      toe: Date.parse("2030-01-01T00:00:00.000Z") / 1000,
    });
    expect(claims).not.toHaveProperty("exp");
    expect(Object.keys(claims).sort()).toEqual(["aud", "events", "iat", "iss", "jti", "sub_id", "toe", "txn"]);
  });

  it("carries txn, the same for every SET of the event (RFC 9967 §2.2: REQUIRED for replication and co-ordinated provisioning)", async () => {
    const full = await set(event("user.created", "POST"), "full");
    const notice = await set(event("user.created", "POST"), "notice");
    expect(typeof full.claims["txn"]).toBe("string");
    expect(full.claims["txn"]).toBe(notice.claims["txn"]);
  });

  it("names the subject with sub_id {format: scim, uri} and never sub (RFC 9967 §2.1: MUST, MUST NOT)", async () => {
    const { claims } = await set(event("user.updated", "PATCH"), "notice");
    expect(claims["sub_id"]).toEqual({ format: "scim", uri: `/Users/${USER_ID}`, externalId: "jdoe" });
    expect(claims).not.toHaveProperty("sub");
    const { externalId: _externalId, ...withoutExternalId } = user;
    const anonymous = await set(event("user.updated", "PATCH", withoutExternalId), "notice");
    expect(anonymous.claims["sub_id"]).toEqual({ format: "scim", uri: `/Users/${USER_ID}` });
    const groupSet = await set(event("group.members.added", "PATCH", group), "notice");
    expect(groupSet.claims["sub_id"]).toEqual({ format: "scim", uri: "/Groups/g1" });
  });

  it("is signed with typ secevent+jwt, ES256 and the key's kid, and verifies against the JWKS (RFC 8417 §2.3)", async () => {
    const { header } = await set(event("user.created", "POST"), "full");
    expect(header).toEqual({ alg: "ES256", typ: "secevent+jwt", kid: (await keys.signingKey("acme")).kid });
  });
});

describe("event payloads", () => {
  it("create:full carries the resource with its id as data, and version (§2.4.1, Figure 4; §2.2)", async () => {
    const [uri, payload] = only((await set(event("user.created", "POST"), "full")).claims);
    expect(uri).toBe(`${PROV}:create:full`);
    expect(payload).toEqual({ data: user, version: VERSION });
  });

  it("create:notice lists the created attributes, id included, without values (§2.4.1, Figure 5)", async () => {
    const [uri, payload] = only((await set(event("user.created", "POST"), "notice")).claims);
    expect(uri).toBe(`${PROV}:create:notice`);
    expect(payload).toEqual({ attributes: ["id", "externalId", "userName", "name"], version: VERSION });
  });

  it("patch:full carries data and version; patch:notice attributes and version (§2.4.2, Figures 6-7)", async () => {
    const [fullUri, full] = only((await set(event("user.updated", "PATCH"), "full")).claims);
    expect(fullUri).toBe(`${PROV}:patch:full`);
    expect(full).toEqual({ data: user, version: VERSION });
    const [noticeUri, notice] = only((await set(event("user.updated", "PATCH"), "notice")).claims);
    expect(noticeUri).toBe(`${PROV}:patch:notice`);
    expect(notice).toEqual({ attributes: ["externalId", "userName", "name"], version: VERSION });
  });

  it("a change of members is patch:notice with attributes [members] (§2.4.2, Figure 7)", async () => {
    const [uri, payload] = only((await set(event("group.members.added", "PATCH", group), "notice")).claims);
    expect(uri).toBe(`${PROV}:patch:notice`);
    expect(payload).toEqual({ attributes: ["members"], version: VERSION });
  });

  it("put:full carries data and version; put:notice lists attributes without id (§2.4.3, Figures 8-9)", async () => {
    const [fullUri, full] = only((await set(event("user.updated", "PUT"), "full")).claims);
    expect(fullUri).toBe(`${PROV}:put:full`);
    expect(full).toEqual({ data: user, version: VERSION });
    const [noticeUri, notice] = only((await set(event("user.updated", "PUT"), "notice")).claims);
    expect(noticeUri).toBe(`${PROV}:put:notice`);
    expect(notice).toEqual({ attributes: ["externalId", "userName", "name"], version: VERSION });
  });

  it("never carries both data and attributes (§2.4: exactly one, both MUST NOT)", async () => {
    for (const method of ["POST", "PUT", "PATCH"]) {
      for (const form of ["full", "notice"] as const) {
        const [, payload] = only((await set(event(method === "POST" ? "user.created" : "user.updated", method), form)).claims);
        expect(["data" in payload, "attributes" in payload].filter(Boolean)).toHaveLength(1);
      }
    }
  });

  it("delete has no payload attributes in either form (§2.4.4, Figure 10)", async () => {
    for (const form of ["full", "notice"] as const) {
      const [uri, payload] = only((await set(event("user.deleted", "DELETE"), form)).claims);
      expect(uri).toBe(`${PROV}:delete`);
      expect(payload).toEqual({});
    }
  });

  it("activate and deactivate carry only the common version (§2.4.5-§2.4.6, §2.2), in either form", async () => {
    for (const form of ["full", "notice"] as const) {
      const [activate, activated] = only((await set(event("user.activated", "PATCH"), form)).claims);
      expect([activate, activated]).toEqual([`${PROV}:activate`, { version: VERSION }]);
      const [deactivate, deactivated] = only((await set(event("user.deactivated", "PATCH"), form)).claims);
      expect([deactivate, deactivated]).toEqual([`${PROV}:deactivate`, { version: VERSION }]);
    }
  });
});

describe("/ServiceProviderConfig", () => {
  const features = { bulk: { maxOperations: 10, maxPayloadSize: 1000 }, maxPageSize: 100, defaultPageSize: 20, sort: true, cursor: true };

  it("advertises securityEvents with exactly asyncRequest and eventUris (RFC 9967 §4)", () => {
    const config = serviceProviderConfig({ ...features, securityEventUris: SECURITY_EVENT_URIS }, ISSUER);
    expect(config["securityEvents"]).toEqual({ asyncRequest: "none", eventUris: [...SECURITY_EVENT_URIS] });
  });

  it("omits securityEvents when no event is sent: absent means not configured (RFC 9967 §4)", () => {
    expect(serviceProviderConfig(features, ISSUER)).not.toHaveProperty("securityEvents");
  });
});
