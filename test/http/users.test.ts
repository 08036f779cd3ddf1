/**
 * `/Users` end to end (spec §4.1; RFC 7644 §3.3–§3.6): every endpoint, uniqueness of `userName`
 * (RFC 7643 §4.1.1, case-insensitive), validation of bodies, and the spec profile (spec §2.3).
 */
import { describe, expect, it } from "vitest";
import { specProfile } from "../../src/scim/schema/resource-profile.js";
import { ENTERPRISE_SCHEMA, LIST_SCHEMA, USER_SCHEMA, createTestApp, expectScimError, userBody } from "./harness.js";
import { SEARCH_REQUEST_SCHEMA, UUID, absoluteUrl, createUser, patchBody, withoutOrigin, type Json } from "./provisioning-helpers.js";

const SPEC_EMPLOYEE_NUMBER = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber";
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe("POST /Users", () => {
  it("creates the user: 201, the body, a UUID id, meta and Location", async () => {
    const t = await createTestApp();
    const response = await t.post("/Users", userBody("alice", { nickName: "Al", externalId: "ext-1" }));

    expect(response.status).toBe(201);
    expect(response.headers["content-type"]).toMatch(/^application\/scim\+json/);
    const body = response.body as Json;
    expect(body["schemas"]).toEqual([USER_SCHEMA]);
    expect(body["id"]).toMatch(UUID);
    expect(body["userName"]).toBe("alice");
    expect(body["externalId"]).toBe("ext-1");
    expect(body["nickName"]).toBe("Al");
    expect(body["active"]).toBe(true);
    expect(body["name"]).toEqual({ givenName: "Given", familyName: "Family alice" });
    expect(body["emails"]).toEqual([{ value: "alice@example.com", type: "work", primary: true }]);

    const meta = body["meta"] as Json;
    expect(meta["resourceType"]).toBe("User");
    expect(meta["created"]).toMatch(ISO_INSTANT);
    expect(meta["lastModified"]).toBe(meta["created"]);
    expect(meta["version"]).toMatch(/^W\/".+"$/);
    expect(response.headers["etag"]).toBe(meta["version"]);
    expect(meta["location"]).toMatch(absoluteUrl(t, `/Users/${String(body["id"])}`));
    expect(response.headers["location"]).toBe(meta["location"]);
  });

  it("gives every user its own id", async () => {
    const t = await createTestApp();
    const a = await createUser(t, "a");
    const b = await createUser(t, "b");
    expect(a["id"]).toMatch(UUID);
    expect(b["id"]).toMatch(UUID);
    expect(a["id"]).not.toBe(b["id"]);
  });
});

describe("GET /Users/{id}", () => {
  it("returns the stored user with its ETag", async () => {
    const t = await createTestApp();
    const created = await createUser(t, "alice");
    const response = await t.get(`/Users/${String(created["id"])}`);
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/scim\+json/);
    expect(withoutOrigin(response.body as Json)).toEqual(withoutOrigin(created));
    expect(response.headers["etag"]).toBe((created["meta"] as Json)["version"]);
    expect((response.body as Json)["meta"]["location"]).toMatch(absoluteUrl(t, `/Users/${String(created["id"])}`));
  });

  it("answers 404 with a SCIM error for an unknown id", async () => {
    const t = await createTestApp();
    await createUser(t, "alice");
    expectScimError(await t.get("/Users/0190b3a0-0000-7000-8000-000000000000"), 404);
    expectScimError(await t.get("/Users/not-a-uuid"), 404);
  });
});

describe("GET /Users", () => {
  it("lists every user of the organization in a ListResponse", async () => {
    const t = await createTestApp();
    const ids = [(await createUser(t, "alice"))["id"], (await createUser(t, "bob"))["id"]];
    const response = await t.get("/Users");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/scim\+json/);
    const body = response.body as Json;
    expect(body["schemas"]).toEqual([LIST_SCHEMA]);
    expect(body["totalResults"]).toBe(2);
    expect(body["itemsPerPage"]).toBe(2);
    expect(body["startIndex"]).toBe(1);
    expect((body["Resources"] as Json[]).map((user) => user["id"]).sort()).toEqual([...ids].sort());
    expect((body["Resources"] as Json[]).every((user) => (user["meta"] as Json)["resourceType"] === "User")).toBe(true);
  });

  it("lists nothing of another organization", async () => {
    const t = await createTestApp();
    await createUser(t, "alice");
    const response = await t.get(`${t.base("globex")}/Users`, t.token.globex);
    expect(response.status).toBe(200);
    expect((response.body as Json)["totalResults"]).toBe(0);
  });
});

describe("POST /Users/.search", () => {
  it("answers exactly what GET answers for the same parameters, given in a SearchRequest body", async () => {
    const t = await createTestApp();
    for (const name of ["alice", "bob", "carol", "dave", "erin"])
      await createUser(t, name, { nickName: name.length > 3 ? "long" : "short" });
    const query = new URLSearchParams({
      filter: 'nickName eq "long"',
      sortBy: "userName",
      sortOrder: "descending",
      startIndex: "2",
      count: "2",
      attributes: "userName,nickName",
    });
    const viaGet = await t.get(`/Users?${query.toString()}`);
    const viaPost = await t.post("/Users/.search", {
      schemas: [SEARCH_REQUEST_SCHEMA],
      filter: 'nickName eq "long"',
      sortBy: "userName",
      sortOrder: "descending",
      startIndex: 2,
      count: 2,
      attributes: ["userName", "nickName"],
    });
    expect(viaGet.status).toBe(200);
    expect(viaPost.status).toBe(200);
    expect(viaPost.headers["content-type"]).toMatch(/^application\/scim\+json/);
    expect(viaPost.body).toEqual(viaGet.body);
    // alice, carol, dave, erin are "long"; descending: erin, dave, carol, alice; page 2 of size 2.
    expect(viaPost.body).toMatchObject({ schemas: [LIST_SCHEMA], totalResults: 4, itemsPerPage: 2, startIndex: 2 });
    const resources = (viaPost.body as Json)["Resources"] as Json[];
    expect(resources.map((user) => user["userName"])).toEqual(["dave", "carol"]);
    for (const user of resources) {
      expect(Object.keys(user).sort()).toEqual(["id", "nickName", "schemas", "userName"]);
    }
  });

  it("refuses a body whose schemas names something other than SearchRequest (as /Bulk does for BulkRequest)", async () => {
    const t = await createTestApp();
    await createUser(t, "alice");
    for (const schemas of [["urn:example:wrong"], "x", [USER_SCHEMA]]) {
      expectScimError(await t.post("/Users/.search", { schemas, filter: 'userName eq "alice"' }), 400, "invalidSyntax");
    }
    // A client that leaves schemas out is not refused; the SearchRequest URN in any case is.
    expect((await t.post("/Users/.search", { filter: 'userName eq "alice"' })).body).toMatchObject({ totalResults: 1 });
    expect(
      (await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA.toLowerCase()], filter: 'userName eq "alice"' })).body,
    ).toMatchObject({ totalResults: 1 });
  });

  it("takes excludedAttributes as an array too", async () => {
    const t = await createTestApp();
    await createUser(t, "alice");
    const response = await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], excludedAttributes: ["emails", "name"] });
    expect(response.status).toBe(200);
    const [user] = (response.body as Json)["Resources"] as Json[];
    expect(user).toBeDefined();
    expect(user!["userName"]).toBe("alice");
    expect(user!["emails"]).toBeUndefined();
    expect(user!["name"]).toBeUndefined();
    expect(user!["id"]).toMatch(UUID);
  });
});

describe("PUT /Users/{id}", () => {
  it("replaces the user: attributes not sent are gone", async () => {
    const t = await createTestApp();
    const created = await createUser(t, "alice", { nickName: "Al", title: "Engineer", [ENTERPRISE_SCHEMA]: { department: "R&D" } });
    const id = String(created["id"]);
    const response = await t.put(`/Users/${id}`, userBody("alice", { displayName: "Alice A." }));
    expect(response.status).toBe(200);
    const body = response.body as Json;
    expect(body["displayName"]).toBe("Alice A.");
    expect(body["nickName"]).toBeUndefined();
    expect(body["title"]).toBeUndefined();
    expect(body[ENTERPRISE_SCHEMA]).toBeUndefined();
    expect(body["schemas"]).toEqual([USER_SCHEMA]);
    expect(response.headers["etag"]).toBe((body["meta"] as Json)["version"]);
    expect((body["meta"] as Json)["version"]).not.toBe((created["meta"] as Json)["version"]);

    const read = (await t.get(`/Users/${id}`)).body as Json;
    expect(read["displayName"]).toBe("Alice A.");
    expect(read["nickName"]).toBeUndefined();
    expect(read["title"]).toBeUndefined();
    expect(read[ENTERPRISE_SCHEMA]).toBeUndefined();
  });

  it("ignores the readOnly id and meta in the body", async () => {
    const t = await createTestApp();
    const created = await createUser(t, "alice");
    const id = String(created["id"]);
    const createdMeta = created["meta"] as Json;
    const response = await t.put(
      `/Users/${id}`,
      userBody("alice", {
        id: "0190b3a0-0000-7000-8000-000000000000",
        nickName: "Al",
        meta: {
          resourceType: "Group",
          created: "2000-01-01T00:00:00Z",
          lastModified: "2000-01-01T00:00:00Z",
          version: 'W/"forged"',
          location: "https://evil.example/x",
        },
      }),
    );
    expect(response.status).toBe(200);
    const body = response.body as Json;
    expect(body["id"]).toBe(id);
    expect(body["nickName"]).toBe("Al");
    const meta = body["meta"] as Json;
    expect(meta["resourceType"]).toBe("User");
    expect(meta["created"]).toBe(createdMeta["created"]);
    expect(meta["version"]).not.toBe('W/"forged"');
    expect(meta["location"]).toMatch(absoluteUrl(t, `/Users/${id}`));
    expect(Date.parse(String(meta["lastModified"]))).toBeGreaterThanOrEqual(Date.parse(String(createdMeta["created"])));
    expectScimError(await t.get("/Users/0190b3a0-0000-7000-8000-000000000000"), 404);
    expect((await t.get(`/Users/${id}`)).body).toMatchObject({ id, nickName: "Al" });
  });

  it("answers 404 for an unknown id", async () => {
    const t = await createTestApp();
    expectScimError(await t.put("/Users/0190b3a0-0000-7000-8000-000000000000", userBody("ghost")), 404);
    expect((await t.get("/Users")).body).toMatchObject({ totalResults: 0 });
  });
});

describe("PATCH /Users/{id}", () => {
  it("adds, replaces and removes attributes and answers 200 with the resource", async () => {
    const t = await createTestApp();
    const created = await createUser(t, "alice", { title: "Engineer", displayName: "Alice" });
    const id = String(created["id"]);
    const response = await t.patch(
      `/Users/${id}`,
      patchBody(
        { op: "add", path: "nickName", value: "Al" },
        { op: "replace", path: "displayName", value: "Alice A." },
        { op: "remove", path: "title" },
        { op: "add", path: "emails", value: [{ value: "alice@home.example", type: "home" }] },
      ),
    );
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/scim\+json/);
    const body = response.body as Json;
    expect(body["id"]).toBe(id);
    expect(body["nickName"]).toBe("Al");
    expect(body["displayName"]).toBe("Alice A.");
    expect(body["title"]).toBeUndefined();
    expect((body["emails"] as Json[]).map((email) => email["value"]).sort()).toEqual(["alice@example.com", "alice@home.example"]);
    expect(response.headers["etag"]).toBe((body["meta"] as Json)["version"]);
    expect((body["meta"] as Json)["version"]).not.toBe((created["meta"] as Json)["version"]);

    const read = (await t.get(`/Users/${id}`)).body as Json;
    expect(withoutOrigin(read)).toEqual(withoutOrigin(body));
  });

  it("answers 404 for an unknown id", async () => {
    const t = await createTestApp();
    expectScimError(
      await t.patch("/Users/0190b3a0-0000-7000-8000-000000000000", patchBody({ op: "add", path: "nickName", value: "x" })),
      404,
    );
  });
});

describe("DELETE /Users/{id}", () => {
  it("answers 204 with no body, then the user is gone (404)", async () => {
    const t = await createTestApp();
    const id = String((await createUser(t, "alice"))["id"]);
    const response = await t.delete(`/Users/${id}`);
    expect(response.status).toBe(204);
    expect(response.text ?? "").toBe("");
    expectScimError(await t.get(`/Users/${id}`), 404);
    expectScimError(await t.delete(`/Users/${id}`), 404);
    expect((await t.get("/Users")).body).toMatchObject({ totalResults: 0 });
  });
});

describe("userName uniqueness (409 uniqueness)", () => {
  it("refuses a second user whose userName differs only in case", async () => {
    const t = await createTestApp();
    await createUser(t, "alice");
    const { detail } = expectScimError(await t.post("/Users", userBody("ALICE")), 409, "uniqueness");
    expect(detail).toMatch(/userName/);
    expect((await t.get("/Users")).body).toMatchObject({ totalResults: 1 });
  });

  it("allows the same userName in another organization", async () => {
    const t = await createTestApp();
    await createUser(t, "alice");
    expect((await t.post(`${t.base("globex")}/Users`, userBody("alice"), t.token.globex)).status).toBe(201);
  });

  it("refuses a PUT that renames to a taken userName and leaves the user unchanged", async () => {
    const t = await createTestApp();
    await createUser(t, "alice");
    const bob = await createUser(t, "bob");
    const id = String(bob["id"]);
    expectScimError(await t.put(`/Users/${id}`, userBody("Alice", { nickName: "changed" })), 409, "uniqueness");
    const read = (await t.get(`/Users/${id}`)).body as Json;
    expect(withoutOrigin(read)).toEqual(withoutOrigin(bob));
  });

  it("refuses a PATCH that renames to a taken userName and leaves the user unchanged", async () => {
    const t = await createTestApp();
    await createUser(t, "alice");
    const bob = await createUser(t, "bob");
    const id = String(bob["id"]);
    const response = await t.patch(
      `/Users/${id}`,
      patchBody({ op: "replace", path: "nickName", value: "changed" }, { op: "replace", path: "userName", value: "aLiCe" }),
    );
    expectScimError(response, 409, "uniqueness");
    const read = (await t.get(`/Users/${id}`)).body as Json;
    expect(withoutOrigin(read)).toEqual(withoutOrigin(bob));
  });

  it("lets a user keep its own userName in another case", async () => {
    const t = await createTestApp();
    const alice = await createUser(t, "alice");
    const response = await t.put(`/Users/${String(alice["id"])}`, userBody("Alice"));
    expect(response.status).toBe(200);
    expect((response.body as Json)["userName"]).toBe("Alice");
  });
});

describe("validation (400 invalidValue)", () => {
  it("refuses a user without userName and names the path", async () => {
    const t = await createTestApp();
    const { userName: _userName, ...body } = userBody("alice");
    const { detail } = expectScimError(await t.post("/Users", body), 400, "invalidValue");
    expect(detail).toMatch(/userName/);
    expect((await t.get("/Users")).body).toMatchObject({ totalResults: 0 });
  });

  it("refuses a PUT without userName and leaves the user unchanged", async () => {
    const t = await createTestApp();
    const alice = await createUser(t, "alice");
    const { userName: _userName, ...body } = userBody("alice", { nickName: "x" });
    const { detail } = expectScimError(await t.put(`/Users/${String(alice["id"])}`, body), 400, "invalidValue");
    expect(detail).toMatch(/userName/);
    expect(withoutOrigin((await t.get(`/Users/${String(alice["id"])}`)).body as Json)).toEqual(withoutOrigin(alice));
  });

  it('refuses active: "maybe"', async () => {
    const t = await createTestApp();
    const { detail } = expectScimError(await t.post("/Users", userBody("alice", { active: "maybe" })), 400, "invalidValue");
    expect(detail).toMatch(/active/);
    expect((await t.get("/Users")).body).toMatchObject({ totalResults: 0 });
  });

  it('refuses emails: "x"', async () => {
    const t = await createTestApp();
    const { detail } = expectScimError(await t.post("/Users", userBody("alice", { emails: "x" })), 400, "invalidValue");
    expect(detail).toMatch(/emails/);
    expect((await t.get("/Users")).body).toMatchObject({ totalResults: 0 });
  });

  it("refuses a wrong type in PATCH too and leaves the user unchanged", async () => {
    const t = await createTestApp();
    const alice = await createUser(t, "alice");
    const response = await t.patch(`/Users/${String(alice["id"])}`, patchBody({ op: "replace", path: "active", value: "maybe" }));
    expectScimError(response, 400);
    expect((await t.get(`/Users/${String(alice["id"])}`)).body).toMatchObject({ active: true });
  });

  it("refuses a body that is not a JSON object", async () => {
    const t = await createTestApp();
    expectScimError(await t.post("/Users", "[1,2]"), 400);
  });
});

describe("the spec profile (spec §2.3)", () => {
  it("requires the work e-mail", async () => {
    const t = await createTestApp({ profile: specProfile });
    const body = userBody("alice", { emails: [{ value: "alice@home.example", type: "home" }] });
    const { detail } = expectScimError(await t.post("/Users", body), 400, "invalidValue");
    expect(detail).toContain('emails[type eq "work"].value');
    expectScimError(await t.post("/Users", userBody("bob", { emails: [] })), 400, "invalidValue");
    expect((await t.get("/Users")).body).toMatchObject({ totalResults: 0 });
  });

  it("requires name.givenName (and name.familyName)", async () => {
    const t = await createTestApp({ profile: specProfile });
    const noGiven = expectScimError(await t.post("/Users", userBody("alice", { name: { familyName: "A" } })), 400, "invalidValue");
    expect(noGiven.detail).toContain("name.givenName");
    const noFamily = expectScimError(await t.post("/Users", userBody("alice", { name: { givenName: "A" } })), 400, "invalidValue");
    expect(noFamily.detail).toContain("name.familyName");
    expect((await t.get("/Users")).body).toMatchObject({ totalResults: 0 });
  });

  it("does not require them under the default RFC 7643 profile", async () => {
    const t = await createTestApp();
    const response = await t.post("/Users", { schemas: [USER_SCHEMA], userName: "alice" });
    expect(response.status).toBe(201);
  });

  it("accepts attributes outside the synchronized set and does not store them", async () => {
    const t = await createTestApp({ profile: specProfile });
    const response = await t.post(
      "/Users",
      userBody("alice", {
        title: "Engineer",
        displayName: "Alice",
        phoneNumbers: [{ value: "+1 555 0100", type: "work" }],
        name: { givenName: "Alice", familyName: "A", middleName: "M" },
        nickName: "Al",
        preferredLanguage: "en-US",
        [ENTERPRISE_SCHEMA]: { department: "R&D", costCenter: "CC-1" },
        urnNobodyKnows: "x",
      }),
    );
    expect(response.status).toBe(201);
    for (const body of [response.body as Json, (await t.get(`/Users/${String((response.body as Json)["id"])}`)).body as Json]) {
      expect(body["title"]).toBeUndefined();
      expect(body["displayName"]).toBeUndefined();
      expect(body["phoneNumbers"]).toBeUndefined();
      expect(body["urnNobodyKnows"]).toBeUndefined();
      expect(body["name"]).toEqual({ givenName: "Alice", familyName: "A" });
      // emails.primary is not part of the synchronized set either.
      expect(body["emails"]).toEqual([{ value: "alice@example.com", type: "work" }]);
      expect(body["nickName"]).toBe("Al");
      expect(body["preferredLanguage"]).toBe("en-US");
      expect(body[ENTERPRISE_SCHEMA]).toEqual({ department: "R&D" });
    }
  });

  it("refuses a PATCH that removes the work e-mail", async () => {
    const t = await createTestApp({ profile: specProfile });
    const alice = (await t.post("/Users", userBody("alice"))).body as Json;
    const response = await t.patch(`/Users/${String(alice["id"])}`, patchBody({ op: "remove", path: 'emails[type eq "work"]' }));
    const { detail } = expectScimError(response, 400, "invalidValue");
    expect(detail).toContain('emails[type eq "work"].value');
    expect(((await t.get(`/Users/${String(alice["id"])}`)).body as Json)["emails"]).toHaveLength(1);
  });
});

describe("the enterprise employeeNumber path of the spec", () => {
  it("accepts …:enterprise:2.0:employeeNumber on create and emits …:enterprise:2.0:User:employeeNumber", async () => {
    const t = await createTestApp({ profile: specProfile });
    const response = await t.post("/Users", userBody("alice", { [SPEC_EMPLOYEE_NUMBER]: "E-701984" }));
    expect(response.status).toBe(201);
    const body = response.body as Json;
    expect(body[ENTERPRISE_SCHEMA]).toEqual({ employeeNumber: "E-701984" });
    expect(body[SPEC_EMPLOYEE_NUMBER]).toBeUndefined();
    expect(body["schemas"]).toEqual([USER_SCHEMA, ENTERPRISE_SCHEMA]);
    expect(JSON.stringify(body)).not.toContain(SPEC_EMPLOYEE_NUMBER);

    const read = (await t.get(`/Users/${String(body["id"])}`)).body as Json;
    expect(read[ENTERPRISE_SCHEMA]).toEqual({ employeeNumber: "E-701984" });
    expect(JSON.stringify(read)).not.toContain(SPEC_EMPLOYEE_NUMBER);
  });

  it("accepts the spec path in PATCH and in a filter", async () => {
    const t = await createTestApp({ profile: specProfile });
    const alice = (await t.post("/Users", userBody("alice"))).body as Json;
    await t.post("/Users", userBody("bob"));
    const patched = await t.patch(`/Users/${String(alice["id"])}`, patchBody({ op: "add", path: SPEC_EMPLOYEE_NUMBER, value: "E-1" }));
    expect(patched.status).toBe(200);
    expect((patched.body as Json)[ENTERPRISE_SCHEMA]).toEqual({ employeeNumber: "E-1" });
    expect(JSON.stringify(patched.body)).not.toContain(SPEC_EMPLOYEE_NUMBER);

    for (const path of [SPEC_EMPLOYEE_NUMBER, `${ENTERPRISE_SCHEMA}:employeeNumber`]) {
      const list = await t.get(`/Users?filter=${encodeURIComponent(`${path} eq "E-1"`)}`);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ totalResults: 1 });
      expect(((list.body as Json)["Resources"] as Json[])[0]!["id"]).toBe(alice["id"]);
    }
  });

  it("accepts the spec path in a PUT", async () => {
    const t = await createTestApp();
    const alice = await createUser(t, "alice");
    const response = await t.put(`/Users/${String(alice["id"])}`, userBody("alice", { [SPEC_EMPLOYEE_NUMBER]: "E-2" }));
    expect(response.status).toBe(200);
    expect((response.body as Json)[ENTERPRISE_SCHEMA]).toEqual({ employeeNumber: "E-2" });
  });
});
