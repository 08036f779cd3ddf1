/**
 * `/Groups` end to end (spec §2.4, §4.2; RFC 7644 §3.3–§3.6): every endpoint, members as
 * `{value: userId}` rendered with `type` and `$ref`, unknown member ids (ignored by default,
 * rejected on request), nested groups, the 204 answer to a group PATCH, and displayName uniqueness.
 */
import { describe, expect, it } from "vitest";
import { GROUP_SCHEMA, LIST_SCHEMA, createTestApp, expectScimError, type TestApp } from "./harness.js";
import {
  SEARCH_REQUEST_SCHEMA,
  UUID,
  absoluteUrl,
  createGroup,
  createUser,
  memberIdsOf,
  patchBody,
  withoutOrigin,
  type Json,
} from "./provisioning-helpers.js";

const UNKNOWN_ID = "0190b3a0-0000-7000-8000-00000000dead";

async function users(t: TestApp, ...names: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const name of names) ids.push(String((await createUser(t, name))["id"]));
  return ids;
}

async function readGroup(t: TestApp, id: string): Promise<Json> {
  const response = await t.get(`/Groups/${id}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as Json;
}

describe("POST /Groups", () => {
  it("creates the group: 201, UUID id, meta, Location, members with value, type and an absolute $ref", async () => {
    const t = await createTestApp();
    const [alice, bob] = await users(t, "alice", "bob");
    const response = await t.post("/Groups", {
      schemas: [GROUP_SCHEMA],
      displayName: "Engineering",
      externalId: "eng",
      members: [{ value: alice }, { value: bob }],
    });
    expect(response.status).toBe(201);
    expect(response.headers["content-type"]).toMatch(/^application\/scim\+json/);
    const body = response.body as Json;
    expect(body["schemas"]).toEqual([GROUP_SCHEMA]);
    expect(body["id"]).toMatch(UUID);
    expect(body["displayName"]).toBe("Engineering");
    expect(body["externalId"]).toBe("eng");
    const meta = body["meta"] as Json;
    expect(meta["resourceType"]).toBe("Group");
    expect(typeof meta["created"]).toBe("string");
    expect(meta["lastModified"]).toBe(meta["created"]);
    expect(meta["version"]).toMatch(/^W\/".+"$/);
    expect(response.headers["etag"]).toBe(meta["version"]);
    expect(meta["location"]).toMatch(absoluteUrl(t, `/Groups/${String(body["id"])}`));
    expect(response.headers["location"]).toBe(meta["location"]);

    const members = body["members"] as Json[];
    expect(members).toHaveLength(2);
    for (const [member, id] of [
      [members[0], alice],
      [members[1], bob],
    ] as const) {
      expect(member!["value"]).toBe(id);
      expect(member!["type"]).toBe("User");
      expect(member!["$ref"]).toMatch(absoluteUrl(t, `/Users/${id!}`));
    }
  });

  it("creates a group without members", async () => {
    const t = await createTestApp();
    const response = await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Empty" });
    expect(response.status).toBe(201);
    expect((response.body as Json)["members"] ?? []).toEqual([]);
  });

  it("refuses a member without value (400 invalidValue), storing nothing", async () => {
    const t = await createTestApp();
    const response = await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "G", members: [{ type: "User" }] });
    const { detail } = expectScimError(response, 400, "invalidValue");
    expect(detail).toMatch(/members\[0\]\.value/);
    expect((await t.get("/Groups")).body).toMatchObject({ totalResults: 0 });
  });

  it("refuses a member that names no id at all, only a display name (400), rather than dropping it silently", async () => {
    const t = await createTestApp({ unknownMembers: "reject" });
    await createUser(t, "alice");
    const response = await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "G", members: [{ display: "alice" }] });
    const { detail } = expectScimError(response, 400, "invalidValue");
    expect(detail).toMatch(/members/);
    expect((await t.get("/Groups")).body).toMatchObject({ totalResults: 0 });
  });

  it("refuses a duplicate displayName with 409 uniqueness", async () => {
    const t = await createTestApp();
    await createGroup(t, "Engineering");
    const { detail } = expectScimError(await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Engineering" }), 409, "uniqueness");
    expect(detail).toMatch(/displayName/);
    expect((await t.get("/Groups")).body).toMatchObject({ totalResults: 1 });
  });

  it("refuses a group without displayName (400 invalidValue naming the path)", async () => {
    const t = await createTestApp();
    const { detail } = expectScimError(await t.post("/Groups", { schemas: [GROUP_SCHEMA], members: [] }), 400, "invalidValue");
    expect(detail).toMatch(/displayName/);
  });
});

describe("GET /Groups/{id} and GET /Groups", () => {
  it("reads one group with its members", async () => {
    const t = await createTestApp();
    const [alice] = await users(t, "alice");
    const group = await createGroup(t, "Engineering", [alice!]);
    const read = await readGroup(t, String(group["id"]));
    expect(withoutOrigin(read)).toEqual(withoutOrigin(group));
    expect(read["members"]).toEqual([{ value: alice, type: "User", $ref: expect.stringMatching(absoluteUrl(t, `/Users/${alice!}`)) }]);
  });

  it("answers 404 with a SCIM error for an unknown id", async () => {
    const t = await createTestApp();
    await createGroup(t, "Engineering");
    expectScimError(await t.get(`/Groups/${UNKNOWN_ID}`), 404);
  });

  it("does not read a user as a group", async () => {
    const t = await createTestApp();
    const [alice] = await users(t, "alice");
    expectScimError(await t.get(`/Groups/${alice!}`), 404);
  });

  it("lists groups, with or without members", async () => {
    const t = await createTestApp();
    const [alice] = await users(t, "alice");
    await createGroup(t, "Engineering", [alice!]);
    await createGroup(t, "Sales");
    const list = await t.get("/Groups?sortBy=displayName");
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ schemas: [LIST_SCHEMA], totalResults: 2 });
    const [engineering, sales] = (list.body as Json)["Resources"] as Json[];
    expect(engineering!["displayName"]).toBe("Engineering");
    expect(memberIdsOf(engineering!)).toEqual([alice]);
    expect(sales!["displayName"]).toBe("Sales");

    const lean = await t.get("/Groups?excludedAttributes=members");
    expect(lean.status).toBe(200);
    for (const group of (lean.body as Json)["Resources"] as Json[]) {
      expect(group["members"]).toBeUndefined();
      expect(group["displayName"]).toBeDefined();
      expect(group["id"]).toMatch(UUID);
    }
    const one = await t.get(`/Groups/${String(engineering!["id"])}?excludedAttributes=members`);
    expect(one.status).toBe(200);
    expect((one.body as Json)["members"]).toBeUndefined();
    expect((one.body as Json)["displayName"]).toBe("Engineering");
  });

  it("searches groups with POST /Groups/.search like GET", async () => {
    const t = await createTestApp();
    const [alice] = await users(t, "alice");
    await createGroup(t, "Engineering", [alice!]);
    await createGroup(t, "Sales");
    const viaGet = await t.get(`/Groups?filter=${encodeURIComponent('displayName sw "Eng"')}&attributes=displayName,members`);
    const viaPost = await t.post("/Groups/.search", {
      schemas: [SEARCH_REQUEST_SCHEMA],
      filter: 'displayName sw "Eng"',
      attributes: ["displayName", "members"],
    });
    expect(viaPost.status).toBe(200);
    expect(withoutOrigin(viaPost.body)).toEqual(withoutOrigin(viaGet.body));
    expect(viaPost.body).toMatchObject({ totalResults: 1 });
    const [group] = (viaPost.body as Json)["Resources"] as Json[];
    expect(group!["displayName"]).toBe("Engineering");
    expect(memberIdsOf(group!)).toEqual([alice]);
  });

  it("filters groups by member", async () => {
    const t = await createTestApp();
    const [alice, bob] = await users(t, "alice", "bob");
    const engineering = await createGroup(t, "Engineering", [alice!]);
    await createGroup(t, "Sales", [bob!]);
    const list = await t.get(`/Groups?filter=${encodeURIComponent(`members[value eq "${alice!}"]`)}&excludedAttributes=members`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ totalResults: 1 });
    expect(((list.body as Json)["Resources"] as Json[])[0]!["id"]).toBe(engineering["id"]);
  });
});

describe("PUT /Groups/{id}", () => {
  it("replaces displayName and the whole member list; attributes not sent are gone", async () => {
    const t = await createTestApp();
    const [alice, bob, carol] = await users(t, "alice", "bob", "carol");
    const group = await createGroup(t, "Engineering", [alice!, bob!], { externalId: "eng" });
    const id = String(group["id"]);
    const response = await t.put(`/Groups/${id}`, {
      schemas: [GROUP_SCHEMA],
      displayName: "R&D",
      members: [{ value: bob }, { value: carol }],
    });
    expect(response.status).toBe(200);
    const body = response.body as Json;
    expect(body["id"]).toBe(id);
    expect(body["displayName"]).toBe("R&D");
    expect(body["externalId"]).toBeUndefined();
    expect(memberIdsOf(body)).toEqual([bob, carol].sort());
    expect(response.headers["etag"]).toBe((body["meta"] as Json)["version"]);

    const read = await readGroup(t, id);
    expect(read["displayName"]).toBe("R&D");
    expect(read["externalId"]).toBeUndefined();
    expect(memberIdsOf(read)).toEqual([bob, carol].sort());
  });

  it("clears the members with members: []", async () => {
    const t = await createTestApp();
    const [alice] = await users(t, "alice");
    const group = await createGroup(t, "Engineering", [alice!]);
    const response = await t.put(`/Groups/${String(group["id"])}`, { schemas: [GROUP_SCHEMA], displayName: "Engineering", members: [] });
    expect(response.status).toBe(200);
    expect(memberIdsOf(await readGroup(t, String(group["id"])))).toEqual([]);
  });

  it("refuses renaming to a taken displayName (409) and leaves the group unchanged", async () => {
    const t = await createTestApp();
    await createGroup(t, "Sales");
    const group = await createGroup(t, "Engineering");
    expectScimError(await t.put(`/Groups/${String(group["id"])}`, { schemas: [GROUP_SCHEMA], displayName: "Sales" }), 409, "uniqueness");
    expect((await readGroup(t, String(group["id"])))["displayName"]).toBe("Engineering");
  });
});

describe("PATCH /Groups/{id}", () => {
  it("answers 204 with an ETag and no body when no attributes are asked for; the changes are stored", async () => {
    const t = await createTestApp();
    const [alice, bob, carol] = await users(t, "alice", "bob", "carol");
    const group = await createGroup(t, "Engineering", [alice!, bob!]);
    const id = String(group["id"]);

    const added = await t.patch(`/Groups/${id}`, patchBody({ op: "add", path: "members", value: [{ value: carol }] }));
    expect(added.status).toBe(204);
    expect(added.text ?? "").toBe("");
    expect(added.headers["etag"]).toMatch(/^W\/".+"$/);
    expect(added.headers["etag"]).not.toBe((group["meta"] as Json)["version"]);
    const afterAdd = await readGroup(t, id);
    expect(memberIdsOf(afterAdd)).toEqual([alice, bob, carol].sort());
    expect(afterAdd["meta"]["version"]).toBe(added.headers["etag"]);

    const renamed = await t.patch(
      `/Groups/${id}`,
      patchBody({ op: "replace", path: "displayName", value: "R&D" }, { op: "add", path: "externalId", value: "rd" }),
    );
    expect(renamed.status).toBe(204);
    expect(renamed.headers["etag"]).toMatch(/^W\/".+"$/);

    const removed = await t.patch(`/Groups/${id}`, patchBody({ op: "remove", path: `members[value eq "${alice!}"]` }));
    expect(removed.status).toBe(204);

    const removedExternal = await t.patch(`/Groups/${id}`, patchBody({ op: "remove", path: "externalId" }));
    expect(removedExternal.status).toBe(204);

    const read = await readGroup(t, id);
    expect(read["displayName"]).toBe("R&D");
    expect(read["externalId"]).toBeUndefined();
    expect(memberIdsOf(read)).toEqual([bob, carol].sort());
    expect(read["meta"]["version"]).toBe(removedExternal.headers["etag"]);
  });

  it("replaces all members with op replace on members", async () => {
    const t = await createTestApp();
    const [alice, bob, carol] = await users(t, "alice", "bob", "carol");
    const group = await createGroup(t, "Engineering", [alice!, bob!]);
    const response = await t.patch(
      `/Groups/${String(group["id"])}`,
      patchBody({ op: "replace", path: "members", value: [{ value: carol }] }),
    );
    expect(response.status).toBe(204);
    expect(memberIdsOf(await readGroup(t, String(group["id"])))).toEqual([carol]);
  });

  it("answers 200 with the projected group when attributes is in the query", async () => {
    const t = await createTestApp();
    const [alice, bob] = await users(t, "alice", "bob");
    const group = await createGroup(t, "Engineering", [alice!], { externalId: "eng" });
    const response = await t.patch(
      `/Groups/${String(group["id"])}?attributes=members`,
      patchBody({ op: "add", path: "members", value: [{ value: bob }] }),
    );
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/scim\+json/);
    const body = response.body as Json;
    expect(body["id"]).toBe(group["id"]);
    expect(body["schemas"]).toEqual([GROUP_SCHEMA]);
    expect(memberIdsOf(body)).toEqual([alice, bob].sort());
    expect(body["displayName"]).toBeUndefined();
    expect(body["externalId"]).toBeUndefined();
    for (const member of body["members"] as Json[]) {
      expect(member["type"]).toBe("User");
      expect(member["$ref"]).toMatch(absoluteUrl(t, `/Users/${String(member["value"])}`));
    }
    expect(response.headers["etag"]).toBe((await readGroup(t, String(group["id"])))["meta"]["version"]);
  });

  it("answers 200 without members when excludedAttributes=members is in the query", async () => {
    const t = await createTestApp();
    const [alice, bob] = await users(t, "alice", "bob");
    const group = await createGroup(t, "Engineering", [alice!]);
    const response = await t.patch(
      `/Groups/${String(group["id"])}?excludedAttributes=members`,
      patchBody({ op: "add", path: "members", value: [{ value: bob }] }, { op: "replace", path: "displayName", value: "R&D" }),
    );
    expect(response.status).toBe(200);
    const body = response.body as Json;
    expect(body["members"]).toBeUndefined();
    expect(body["displayName"]).toBe("R&D");
    expect(body["id"]).toBe(group["id"]);
    expect(body["meta"]["version"]).toBe(response.headers["etag"]);
    expect(memberIdsOf(await readGroup(t, String(group["id"])))).toEqual([alice, bob].sort());
  });

  it("refuses renaming to a taken displayName (409) and leaves the group unchanged", async () => {
    const t = await createTestApp();
    await createGroup(t, "Sales");
    const group = await createGroup(t, "Engineering");
    expectScimError(
      await t.patch(`/Groups/${String(group["id"])}`, patchBody({ op: "replace", path: "displayName", value: "Sales" })),
      409,
      "uniqueness",
    );
    expect((await readGroup(t, String(group["id"])))["displayName"]).toBe("Engineering");
  });

  it("answers 404 for an unknown group", async () => {
    const t = await createTestApp();
    expectScimError(await t.patch(`/Groups/${UNKNOWN_ID}`, patchBody({ op: "replace", path: "displayName", value: "x" })), 404);
  });
});

describe("DELETE /Groups/{id}", () => {
  it("answers 204, then 404; the members (users) remain", async () => {
    const t = await createTestApp();
    const [alice] = await users(t, "alice");
    const group = await createGroup(t, "Engineering", [alice!]);
    const response = await t.delete(`/Groups/${String(group["id"])}`);
    expect(response.status).toBe(204);
    expect(response.text ?? "").toBe("");
    expectScimError(await t.get(`/Groups/${String(group["id"])}`), 404);
    expectScimError(await t.delete(`/Groups/${String(group["id"])}`), 404);
    expect((await t.get(`/Users/${alice!}`)).status).toBe(200);
  });
});

describe("membership", () => {
  it("deleting a user removes it from every group", async () => {
    const t = await createTestApp();
    const [alice, bob] = await users(t, "alice", "bob");
    const engineering = await createGroup(t, "Engineering", [alice!, bob!]);
    const sales = await createGroup(t, "Sales", [alice!]);
    expect((await t.delete(`/Users/${alice!}`)).status).toBe(204);
    expect(memberIdsOf(await readGroup(t, String(engineering["id"])))).toEqual([bob]);
    expect(memberIdsOf(await readGroup(t, String(sales["id"])))).toEqual([]);
    const byMember = await t.get(`/Groups?filter=${encodeURIComponent(`members.value eq "${alice!}"`)}`);
    expect(byMember.body).toMatchObject({ totalResults: 0 });
  });

  it("ignores unknown member ids by default: the group is created with the known ones", async () => {
    const t = await createTestApp();
    const [alice] = await users(t, "alice");
    const response = await t.post("/Groups", {
      schemas: [GROUP_SCHEMA],
      displayName: "Engineering",
      members: [{ value: alice }, { value: UNKNOWN_ID }],
    });
    expect(response.status).toBe(201);
    expect(memberIdsOf(response.body as Json)).toEqual([alice]);
    expect(memberIdsOf(await readGroup(t, String((response.body as Json)["id"])))).toEqual([alice]);
    expect(t.events.some((event) => event.type === "group.members.ignored" && event.memberIds?.includes(UNKNOWN_ID))).toBe(true);
  });

  it("ignores unknown member ids in PATCH and PUT by default", async () => {
    const t = await createTestApp();
    const [alice, bob] = await users(t, "alice", "bob");
    const group = await createGroup(t, "Engineering", [alice!]);
    const id = String(group["id"]);
    expect(
      (await t.patch(`/Groups/${id}`, patchBody({ op: "add", path: "members", value: [{ value: UNKNOWN_ID }, { value: bob }] }))).status,
    ).toBe(204);
    expect(memberIdsOf(await readGroup(t, id))).toEqual([alice, bob].sort());
    const put = await t.put(`/Groups/${id}`, {
      schemas: [GROUP_SCHEMA],
      displayName: "Engineering",
      members: [{ value: UNKNOWN_ID }, { value: alice }],
    });
    expect(put.status).toBe(200);
    expect(memberIdsOf(put.body as Json)).toEqual([alice]);
  });

  it("does not take a user of another organization as a member", async () => {
    const t = await createTestApp();
    const foreign = await t.post(
      `${t.base("globex")}/Users`,
      { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "x" },
      t.token.globex,
    );
    expect(foreign.status).toBe(201);
    const response = await t.post("/Groups", {
      schemas: [GROUP_SCHEMA],
      displayName: "G",
      members: [{ value: (foreign.body as Json)["id"] }],
    });
    expect(response.status).toBe(201);
    expect(memberIdsOf(response.body as Json)).toEqual([]);
  });

  describe('with unknownMembers: "reject"', () => {
    it("refuses a group with an unknown member id: 400 invalidValue naming it, nothing stored", async () => {
      const t = await createTestApp({ unknownMembers: "reject" });
      const [alice] = await users(t, "alice");
      const response = await t.post("/Groups", {
        schemas: [GROUP_SCHEMA],
        displayName: "Engineering",
        members: [{ value: alice }, { value: UNKNOWN_ID }],
      });
      const { detail } = expectScimError(response, 400, "invalidValue");
      expect(detail).toContain(UNKNOWN_ID);
      expect((await t.get("/Groups")).body).toMatchObject({ totalResults: 0 });
      // The name is still free: nothing of the refused group was kept.
      expect((await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Engineering", members: [{ value: alice }] })).status).toBe(
        201,
      );
    });

    it("refuses PATCH and PUT with an unknown member id and leaves the group unchanged", async () => {
      const t = await createTestApp({ unknownMembers: "reject" });
      const [alice, bob] = await users(t, "alice", "bob");
      const group = await createGroup(t, "Engineering", [alice!]);
      const id = String(group["id"]);
      expectScimError(
        await t.patch(`/Groups/${id}`, patchBody({ op: "add", path: "members", value: [{ value: bob }, { value: UNKNOWN_ID }] })),
        400,
        "invalidValue",
      );
      expectScimError(
        await t.put(`/Groups/${id}`, { schemas: [GROUP_SCHEMA], displayName: "Renamed", members: [{ value: bob }, { value: UNKNOWN_ID }] }),
        400,
        "invalidValue",
      );
      const read = await readGroup(t, id);
      expect(read["displayName"]).toBe("Engineering");
      expect(memberIdsOf(read)).toEqual([alice]);
      expect(read["meta"]["version"]).toBe((group["meta"] as Json)["version"]);
    });

    it("still accepts known members", async () => {
      const t = await createTestApp({ unknownMembers: "reject" });
      const [alice] = await users(t, "alice");
      const group = await createGroup(t, "Engineering", [alice!]);
      expect(memberIdsOf(group)).toEqual([alice]);
    });
  });

  it("stores a nested group as a member of type Group with a $ref to /Groups, not expanded", async () => {
    const t = await createTestApp();
    const [alice, bob] = await users(t, "alice", "bob");
    const inner = await createGroup(t, "Inner", [bob!]);
    const innerId = String(inner["id"]);
    const outer = await createGroup(t, "Outer", [alice!, innerId]);
    const members = outer["members"] as Json[];
    expect(members).toHaveLength(2);
    const user = members.find((member) => member["value"] === alice);
    const group = members.find((member) => member["value"] === innerId);
    expect(user).toMatchObject({ type: "User" });
    expect(user!["$ref"]).toMatch(absoluteUrl(t, `/Users/${alice!}`));
    expect(group).toMatchObject({ type: "Group" });
    expect(group!["$ref"]).toMatch(absoluteUrl(t, `/Groups/${innerId}`));
    // Not expanded: bob, a member of Inner, is not a member of Outer.
    expect(memberIdsOf(await readGroup(t, String(outer["id"])))).toEqual([alice, innerId].sort());

    // Deleting the nested group removes it from Outer too.
    expect((await t.delete(`/Groups/${innerId}`)).status).toBe(204);
    expect(memberIdsOf(await readGroup(t, String(outer["id"])))).toEqual([alice]);
  });
});
