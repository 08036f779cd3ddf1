/**
 * A resource type of the host's own that has members (`ResourceTypeDefinition.hasMembers`), end to
 * end: registered on the router, created with members, PATCHed with `add members` (a delta, as for
 * a Group: architecture §3), listed by `members.value eq` with `attributes=members`, its members'
 * deletion followed, and its events named after it. On this project's store (memory or SQLite)
 * and on PostgreSQL.
 */
import { expect, it } from "vitest";
import type { ResourceEventType } from "../../src/http/lifecycle-events/scim-event.js";
import { attribute, type ResourceTypeDefinition, type SchemaDefinition } from "../../src/scim/schema/attribute-definition.js";
import { createSchemaRegistry } from "../../src/scim/schema/schema-registry.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { LIST_SCHEMA, createTestApp, describeOnEveryStore } from "./harness.js";
import { createUser, memberIdsOf, patchBody, type Json } from "./provisioning-helpers.js";

const TEAM_SCHEMA = "urn:example:scim:schemas:2.0:Team";

const teamSchema: SchemaDefinition = {
  id: TEAM_SCHEMA,
  name: "Team",
  description: "A team of users",
  attributes: [
    attribute("displayName", { required: true, uniqueness: "server", description: "The team's unique name." }),
    attribute("members", {
      type: "complex",
      multiValued: true,
      description: "The users of the team.",
      subAttributes: [
        attribute("value", { mutability: "immutable", description: "The member's id." }),
        attribute("$ref", {
          type: "reference",
          referenceTypes: ["User"],
          caseExact: true,
          mutability: "immutable",
          description: "The member's URI.",
        }),
        attribute("type", { mutability: "immutable", canonicalValues: ["User"], description: "The member's resource type." }),
      ],
    }),
  ],
};

const teamResourceType: ResourceTypeDefinition = {
  id: "Team",
  name: "Team",
  endpoint: "/Teams",
  description: "Team",
  schema: TEAM_SCHEMA,
  schemaExtensions: [],
  hasMembers: true,
};

const registry = createSchemaRegistry({ schemas: [teamSchema], resourceTypes: [teamResourceType] });

function teamChecks(storeFor: () => Promise<ResourceStore | undefined>): void {
  it("is created with members, PATCHed with add members, and listed by member with attributes=members", async () => {
    const store = await storeFor();
    const t = await createTestApp({ registry, ...(store ? { store } : {}) });
    const alice = String((await createUser(t, "alice"))["id"]);
    const bob = String((await createUser(t, "bob"))["id"]);

    const created = await t.post("/Teams", { schemas: [TEAM_SCHEMA], displayName: "Platform", members: [{ value: alice }] });
    expect(created.status, created.text).toBe(201);
    const team = created.body as Json;
    const id = String(team["id"]);
    expect(team["schemas"]).toEqual([TEAM_SCHEMA]);
    expect(team["meta"]).toMatchObject({ resourceType: "Team" });
    expect(String(created.headers["location"])).toMatch(new RegExp(`/Teams/${id}$`));
    expect(team["members"]).toEqual([{ value: alice, type: "User", $ref: expect.stringMatching(new RegExp(`/Users/${alice}$`)) }]);
    const other = await t.post("/Teams", { schemas: [TEAM_SCHEMA], displayName: "Support", members: [{ value: alice }] });
    expect(other.status, other.text).toBe(201);

    // As for a Group (RFC 7644 §3.5.2 allows it): 204, sparing the service loading every member.
    const patched = await t.patch(`/Teams/${id}`, patchBody({ op: "add", path: "members", value: [{ value: bob }] }));
    expect(patched.status, patched.text).toBe(204);
    expect(patched.headers["etag"]).not.toBe(created.headers["etag"]);
    expect(memberIdsOf((await t.get(`/Teams/${id}`).expect(200)).body as Json)).toEqual([alice, bob].sort());

    const filter = encodeURIComponent(`members.value eq "${bob}"`);
    const listed = await t.get(`/Teams?filter=${filter}&attributes=members`);
    expect(listed.status, listed.text).toBe(200);
    const body = listed.body as Json;
    expect(body["schemas"]).toEqual([LIST_SCHEMA]);
    expect(body["totalResults"]).toBe(1);
    const [only] = body["Resources"] as Json[];
    expect(only?.["id"]).toBe(id);
    expect(only?.["displayName"]).toBeUndefined();
    expect(memberIdsOf(only ?? {})).toEqual([alice, bob].sort());

    // Deleting a user takes it out of every resource that lists it as a member (architecture §3).
    await t.delete(`/Users/${bob}`).expect(204);
    expect(memberIdsOf((await t.get(`/Teams/${id}`).expect(200)).body as Json)).toEqual([alice]);
    expect((await t.get(`/Teams?filter=${filter}`).expect(200)).body["totalResults"]).toBe(0);
  });

  it("delivers events named after the type: team.created, team.members.added, team.updated", async () => {
    const store = await storeFor();
    const t = await createTestApp({ registry, ...(store ? { store } : {}) });
    const alice = String((await createUser(t, "alice"))["id"]);
    const bob = String((await createUser(t, "bob"))["id"]);
    const id = String(
      (await t.post("/Teams", { schemas: [TEAM_SCHEMA], displayName: "Platform", members: [{ value: alice }] }).expect(201)).body["id"],
    );
    await t.patch(`/Teams/${id}`, patchBody({ op: "add", path: "members", value: [{ value: bob }] })).expect(204);
    await t.patch(`/Teams/${id}`, patchBody({ op: "replace", path: "displayName", value: "Platform team" })).expect(204);

    const teamEvents = t.events.filter((event) => event.resourceType === "Team");
    const expected: ResourceEventType<"Team">[] = ["team.created", "team.members.added", "team.members.added", "team.updated"];
    expect(teamEvents.map((event) => event.type)).toEqual(expected);
    expect(teamEvents.map((event) => event.memberIds)).toEqual([undefined, [alice], [bob], undefined]);
    // Never with members, like a group's events.
    expect(teamEvents.every((event) => event.id === id && event.resource["members"] === undefined)).toBe(true);
  });
}

describeOnEveryStore("a custom resource type with members", teamChecks);
