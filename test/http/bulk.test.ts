/**
 * `POST /Bulk` (RFC 7644 §3.7): the BulkResponse, `bulkId` references resolved in any order,
 * circular and broken references, `failOnErrors`, the advertised limits, per-operation
 * validation and per-operation preconditions.
 */
import { describe, expect, it } from "vitest";
import { ERROR_SCHEMA, GROUP_SCHEMA, USER_SCHEMA, createTestApp, expectScimError, userBody, type TestApp } from "./harness.js";
import {
  BULK_REQUEST_SCHEMA,
  BULK_RESPONSE_SCHEMA,
  UUID,
  absoluteUrl,
  createUser,
  memberIdsOf,
  patchBody,
  type Json,
} from "./provisioning-helpers.js";

type Operation = Record<string, unknown>;

async function bulk(t: TestApp, operations: Operation[], extra: Record<string, unknown> = {}): Promise<Json[]> {
  const response = await t.post("/Bulk", { schemas: [BULK_REQUEST_SCHEMA], ...extra, Operations: operations });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^application\/scim\+json/);
  expect((response.body as Json)["schemas"]).toEqual([BULK_RESPONSE_SCHEMA]);
  return (response.body as Json)["Operations"] as Json[];
}

function idFrom(result: Json): string {
  const location = String(result["location"]);
  return location.slice(location.lastIndexOf("/") + 1);
}

function expectOperationError(result: Json | undefined, status: number, scimType?: string): void {
  expect(result, "the operation has a result").toBeDefined();
  expect(result!["status"]).toBe(String(status));
  const response = result!["response"] as Json;
  expect(response["schemas"]).toEqual([ERROR_SCHEMA]);
  expect(response["status"]).toBe(String(status));
  if (scimType !== undefined) expect(response["scimType"]).toBe(scimType);
  expect(typeof response["detail"]).toBe("string");
}

async function userNamed(t: TestApp, userName: string): Promise<Json | undefined> {
  const response = await t.get(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
  expect(response.status).toBe(200);
  return ((response.body as Json)["Resources"] as Json[])[0];
}

async function totals(t: TestApp): Promise<{ users: number; groups: number }> {
  const users = (await t.get("/Users?count=0")).body as Json;
  const groups = (await t.get("/Groups?count=0")).body as Json;
  return { users: Number(users["totalResults"]), groups: Number(groups["totalResults"]) };
}

describe("the BulkResponse", () => {
  it("reports method, bulkId, status, location and version per operation", async () => {
    const t = await createTestApp();
    const existing = await createUser(t, "existing");
    const doomed = await createUser(t, "doomed");
    const results = await bulk(t, [
      { method: "POST", path: "/Users", bulkId: "u1", data: userBody("alice") },
      { method: "POST", path: "/Groups", bulkId: "g1", data: { schemas: [GROUP_SCHEMA], displayName: "Engineering" } },
      { method: "PUT", path: `/Users/${String(existing["id"])}`, data: userBody("existing", { nickName: "put" }) },
      { method: "PATCH", path: `/Users/${String(existing["id"])}`, data: patchBody({ op: "add", path: "title", value: "patched" }) },
      { method: "DELETE", path: `/Users/${String(doomed["id"])}` },
    ]);
    expect(results).toHaveLength(5);
    const [user, group, put, patch, remove] = results as [Json, Json, Json, Json, Json];

    expect(user).toMatchObject({ method: "POST", bulkId: "u1", status: "201" });
    expect(idFrom(user)).toMatch(UUID);
    expect(user["location"]).toMatch(absoluteUrl(t, `/Users/${idFrom(user)}`));
    expect(user["version"]).toMatch(/^W\/".+"$/);
    const created = await t.get(`/Users/${idFrom(user)}`);
    expect(created.status).toBe(200);
    expect((created.body as Json)["userName"]).toBe("alice");
    expect(created.headers["etag"]).toBe(user["version"]);

    expect(group).toMatchObject({ method: "POST", bulkId: "g1", status: "201" });
    expect(group["location"]).toMatch(absoluteUrl(t, `/Groups/${idFrom(group)}`));
    expect((await t.get(`/Groups/${idFrom(group)}`)).body).toMatchObject({ displayName: "Engineering" });

    expect(put).toMatchObject({ method: "PUT", status: "200" });
    expect(put["location"]).toMatch(absoluteUrl(t, `/Users/${String(existing["id"])}`));
    expect(put["version"]).toMatch(/^W\/".+"$/);
    expect(patch).toMatchObject({ method: "PATCH", status: "200" });
    expect(patch["version"]).not.toBe(put["version"]);
    const read = await t.get(`/Users/${String(existing["id"])}`);
    expect(read.body).toMatchObject({ nickName: "put", title: "patched" });
    expect(read.headers["etag"]).toBe(patch["version"]);

    expect(remove).toMatchObject({ method: "DELETE", status: "204" });
    expect(remove["location"]).toMatch(absoluteUrl(t, `/Users/${String(doomed["id"])}`));
    expectScimError(await t.get(`/Users/${String(doomed["id"])}`), 404);
  });

  it("reports a failing operation with its SCIM error and runs the others", async () => {
    const t = await createTestApp();
    await createUser(t, "taken");
    const results = await bulk(t, [
      { method: "POST", path: "/Users", bulkId: "dup", data: userBody("TAKEN") },
      { method: "PATCH", path: "/Users/0190b3a0-0000-7000-8000-000000000000", data: patchBody({ op: "add", path: "title", value: "x" }) },
      { method: "POST", path: "/Users", bulkId: "ok", data: userBody("fine") },
    ]);
    expectOperationError(results[0], 409, "uniqueness");
    expect(results[0]).toMatchObject({ method: "POST", bulkId: "dup" });
    expectOperationError(results[1], 404);
    expect(results[2]).toMatchObject({ bulkId: "ok", status: "201" });
    expect(await userNamed(t, "fine")).toBeDefined();
  });

  it("refuses a request without the BulkRequest schema or without Operations", async () => {
    const t = await createTestApp();
    expectScimError(await t.post("/Bulk", { schemas: ["urn:example:wrong"], Operations: [] }), 400, "invalidSyntax");
    expectScimError(await t.post("/Bulk", { schemas: [BULK_REQUEST_SCHEMA] }), 400, "invalidSyntax");
    expectScimError(await t.post("/Bulk", "[]"), 400);
  });
});

describe("bulkId references", () => {
  it("resolves a group POST that references a user POSTed later in the request", async () => {
    const t = await createTestApp();
    const results = await bulk(t, [
      {
        method: "POST",
        path: "/Groups",
        bulkId: "g1",
        data: { schemas: [GROUP_SCHEMA], displayName: "Engineering", members: [{ value: "bulkId:u1" }, { value: "bulkId:u2" }] },
      },
      { method: "POST", path: "/Users", bulkId: "u1", data: userBody("alice") },
      { method: "POST", path: "/Users", bulkId: "u2", data: userBody("bob") },
    ]);
    expect(results.map((result) => result["status"])).toEqual(["201", "201", "201"]);
    expect(results.map((result) => result["bulkId"])).toEqual(["g1", "u1", "u2"]);
    const group = await t.get(`/Groups/${idFrom(results[0]!)}`);
    expect(group.status).toBe(200);
    expect(memberIdsOf(group.body as Json)).toEqual([idFrom(results[1]!), idFrom(results[2]!)].sort());
    for (const member of (group.body as Json)["members"] as Json[]) expect(member["type"]).toBe("User");
    expect(JSON.stringify(group.body)).not.toContain("bulkId:");
  });

  it("resolves /Users/bulkId:… paths of PATCH, PUT and DELETE, before or after the POST", async () => {
    const t = await createTestApp();
    const results = await bulk(t, [
      { method: "PATCH", path: "/Users/bulkId:u1", data: patchBody({ op: "add", path: "title", value: "Engineer" }) },
      { method: "POST", path: "/Users", bulkId: "u1", data: userBody("alice") },
      { method: "POST", path: "/Users", bulkId: "u2", data: userBody("bob") },
      { method: "PUT", path: "/Users/bulkId:u2", data: userBody("bob", { nickName: "Bobby" }) },
      { method: "POST", path: "/Users", bulkId: "u3", data: userBody("carol") },
      { method: "DELETE", path: "/Users/bulkId:u3" },
    ]);
    expect(results.map((result) => result["status"])).toEqual(["200", "201", "201", "200", "201", "204"]);
    const alice = idFrom(results[1]!);
    expect(results[0]!["location"]).toMatch(absoluteUrl(t, `/Users/${alice}`));
    expect((await t.get(`/Users/${alice}`)).body).toMatchObject({ userName: "alice", title: "Engineer" });
    const bob = idFrom(results[2]!);
    expect(results[3]!["location"]).toMatch(absoluteUrl(t, `/Users/${bob}`));
    expect((await t.get(`/Users/${bob}`)).body).toMatchObject({ userName: "bob", nickName: "Bobby" });
    const carol = idFrom(results[4]!);
    expect(results[5]!["location"]).toMatch(absoluteUrl(t, `/Users/${carol}`));
    expectScimError(await t.get(`/Users/${carol}`), 404);
  });

  it("resolves references inside PATCH values (adding a user created in the same request to a group)", async () => {
    const t = await createTestApp();
    const results = await bulk(t, [
      { method: "POST", path: "/Groups", bulkId: "g1", data: { schemas: [GROUP_SCHEMA], displayName: "Engineering" } },
      { method: "PATCH", path: "/Groups/bulkId:g1", data: patchBody({ op: "add", path: "members", value: [{ value: "bulkId:u1" }] }) },
      { method: "POST", path: "/Users", bulkId: "u1", data: userBody("alice") },
    ]);
    expect(results.map((result) => result["status"])).toEqual(["201", "200", "201"]);
    expect(memberIdsOf((await t.get(`/Groups/${idFrom(results[0]!)}`)).body as Json)).toEqual([idFrom(results[2]!)]);
  });

  it("fails circular references with 409 and runs the rest", async () => {
    const t = await createTestApp();
    const results = await bulk(t, [
      {
        method: "POST",
        path: "/Groups",
        bulkId: "g1",
        data: { schemas: [GROUP_SCHEMA], displayName: "One", members: [{ value: "bulkId:g2" }] },
      },
      {
        method: "POST",
        path: "/Groups",
        bulkId: "g2",
        data: { schemas: [GROUP_SCHEMA], displayName: "Two", members: [{ value: "bulkId:g1" }] },
      },
      { method: "POST", path: "/Users", bulkId: "u1", data: userBody("alice") },
    ]);
    expectOperationError(results[0], 409);
    expectOperationError(results[1], 409);
    expect(results[0]).toMatchObject({ bulkId: "g1" });
    expect(results[1]).toMatchObject({ bulkId: "g2" });
    expect(results[2]).toMatchObject({ bulkId: "u1", status: "201" });
    expect(await totals(t)).toEqual({ users: 1, groups: 0 });
  });

  it("fails a reference to an operation that failed with 409", async () => {
    const t = await createTestApp();
    const { userName: _userName, ...invalidUser } = userBody("nobody");
    const results = await bulk(t, [
      { method: "POST", path: "/Users", bulkId: "u1", data: invalidUser },
      {
        method: "POST",
        path: "/Groups",
        bulkId: "g1",
        data: { schemas: [GROUP_SCHEMA], displayName: "Engineering", members: [{ value: "bulkId:u1" }] },
      },
      { method: "PATCH", path: "/Users/bulkId:u1", data: patchBody({ op: "add", path: "title", value: "x" }) },
    ]);
    expectOperationError(results[0], 400, "invalidValue");
    expectOperationError(results[1], 409);
    expectOperationError(results[2], 409);
    expect(await totals(t)).toEqual({ users: 0, groups: 0 });
  });

  it("fails a reference to a failed operation even when the reference comes first", async () => {
    const t = await createTestApp();
    await createUser(t, "taken");
    const results = await bulk(t, [
      {
        method: "POST",
        path: "/Groups",
        bulkId: "g1",
        data: { schemas: [GROUP_SCHEMA], displayName: "Engineering", members: [{ value: "bulkId:u1" }] },
      },
      { method: "POST", path: "/Users", bulkId: "u1", data: userBody("taken") },
    ]);
    expectOperationError(results[0], 409);
    expectOperationError(results[1], 409, "uniqueness");
    expect(await totals(t)).toEqual({ users: 1, groups: 0 });
  });

  it("fails a reference to a bulkId that no operation defines with 409", async () => {
    const t = await createTestApp();
    const results = await bulk(t, [
      {
        method: "POST",
        path: "/Groups",
        bulkId: "g1",
        data: { schemas: [GROUP_SCHEMA], displayName: "Engineering", members: [{ value: "bulkId:nowhere" }] },
      },
      { method: "DELETE", path: "/Users/bulkId:nowhere" },
    ]);
    expectOperationError(results[0], 409);
    expectOperationError(results[1], 409);
    expect(await totals(t)).toEqual({ users: 0, groups: 0 });
  });
});

describe("failOnErrors", () => {
  it("failOnErrors: 1 stops after the first error: later operations are absent and not executed", async () => {
    const t = await createTestApp();
    const { userName: _userName, ...invalidUser } = userBody("nobody");
    const results = await bulk(
      t,
      [
        { method: "POST", path: "/Users", bulkId: "a", data: userBody("alice") },
        { method: "POST", path: "/Users", bulkId: "bad", data: invalidUser },
        { method: "POST", path: "/Users", bulkId: "b", data: userBody("bob") },
        { method: "POST", path: "/Users", bulkId: "c", data: userBody("carol") },
      ],
      { failOnErrors: 1 },
    );
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ bulkId: "a", status: "201" });
    expectOperationError(results[1], 400, "invalidValue");
    expect(results[1]).toMatchObject({ bulkId: "bad" });
    expect(await userNamed(t, "alice")).toBeDefined();
    expect(await userNamed(t, "bob")).toBeUndefined();
    expect(await userNamed(t, "carol")).toBeUndefined();
  });

  it("failOnErrors: 2 tolerates one error and stops at the second", async () => {
    const t = await createTestApp();
    await createUser(t, "taken");
    const results = await bulk(
      t,
      [
        { method: "POST", path: "/Users", bulkId: "x1", data: userBody("taken") },
        { method: "POST", path: "/Users", bulkId: "a", data: userBody("alice") },
        { method: "POST", path: "/Users", bulkId: "x2", data: userBody("TAKEN") },
        { method: "POST", path: "/Users", bulkId: "b", data: userBody("bob") },
      ],
      { failOnErrors: 2 },
    );
    expect(results.map((result) => result["bulkId"])).toEqual(["x1", "a", "x2"]);
    expect(results.map((result) => result["status"])).toEqual(["409", "201", "409"]);
    expect(await userNamed(t, "alice")).toBeDefined();
    expect(await userNamed(t, "bob")).toBeUndefined();
  });

  it("failOnErrors: 1 runs the valid operations before a malformed one, and none after it", async () => {
    const t = await createTestApp();
    const results = await bulk(
      t,
      [
        { method: "POST", path: "/Users", bulkId: "a", data: userBody("alice") },
        { method: "GET", path: "/Users", bulkId: "bad" },
        { method: "POST", path: "/Users", bulkId: "b", data: userBody("bob") },
      ],
      { failOnErrors: 1 },
    );
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ bulkId: "a", status: "201" });
    expectOperationError(results[1], 400);
    expect(await userNamed(t, "alice")).toBeDefined();
    expect(await userNamed(t, "bob")).toBeUndefined();
  });

  it("without failOnErrors every operation runs", async () => {
    const t = await createTestApp();
    await createUser(t, "taken");
    const results = await bulk(t, [
      { method: "POST", path: "/Users", bulkId: "x1", data: userBody("taken") },
      { method: "POST", path: "/Users", bulkId: "x2", data: userBody("taken") },
      { method: "POST", path: "/Users", bulkId: "a", data: userBody("alice") },
    ]);
    expect(results.map((result) => result["status"])).toEqual(["409", "409", "201"]);
  });

  it("refuses a failOnErrors that is not a positive integer", async () => {
    const t = await createTestApp();
    for (const failOnErrors of [0, -1, 1.5, "1"]) {
      const response = await t.post("/Bulk", {
        schemas: [BULK_REQUEST_SCHEMA],
        failOnErrors,
        Operations: [{ method: "POST", path: "/Users", bulkId: "a", data: userBody("alice") }],
      });
      expectScimError(response, 400, "invalidValue");
    }
    expect((await totals(t)).users).toBe(0);
  });
});

describe("limits", () => {
  it("refuses more operations than maxOperations with 413, executing nothing", async () => {
    const t = await createTestApp({ bulk: { maxOperations: 2 } });
    const response = await t.post("/Bulk", {
      schemas: [BULK_REQUEST_SCHEMA],
      Operations: [
        { method: "POST", path: "/Users", bulkId: "a", data: userBody("alice") },
        { method: "POST", path: "/Users", bulkId: "b", data: userBody("bob") },
        { method: "POST", path: "/Users", bulkId: "c", data: userBody("carol") },
      ],
    });
    const { detail } = expectScimError(response, 413);
    expect(detail).toMatch(/maxOperations|2/);
    expect((await totals(t)).users).toBe(0);

    const allowed = await bulk(t, [
      { method: "POST", path: "/Users", bulkId: "a", data: userBody("alice") },
      { method: "POST", path: "/Users", bulkId: "b", data: userBody("bob") },
    ]);
    expect(allowed.map((result) => result["status"])).toEqual(["201", "201"]);
  });

  it("refuses a body larger than maxPayloadSize with 413, executing nothing", async () => {
    const t = await createTestApp({ bulk: { maxPayloadSize: 1000 } });
    const operations = [
      { method: "POST", path: "/Users", bulkId: "a", data: userBody("alice", { title: "x".repeat(600) }) },
      { method: "POST", path: "/Users", bulkId: "b", data: userBody("bob", { title: "y".repeat(600) }) },
    ];
    const body = JSON.stringify({ schemas: [BULK_REQUEST_SCHEMA], Operations: operations });
    expect(Buffer.byteLength(body)).toBeGreaterThan(1000);
    expectScimError(await t.post("/Bulk", body), 413);
    expect((await totals(t)).users).toBe(0);

    const small = JSON.stringify({
      schemas: [BULK_REQUEST_SCHEMA],
      Operations: [{ method: "POST", path: "/Users", bulkId: "a", data: userBody("alice") }],
    });
    expect(Buffer.byteLength(small)).toBeLessThan(1000);
    const accepted = await t.post("/Bulk", small);
    expect(accepted.status).toBe(200);
    expect((accepted.body as Json)["Operations"]).toMatchObject([{ status: "201" }]);
  });

  it("advertises both limits in /ServiceProviderConfig", async () => {
    const t = await createTestApp({ bulk: { maxOperations: 2, maxPayloadSize: 1000 } });
    const config = await t.get("/ServiceProviderConfig");
    expect(config.status).toBe(200);
    expect((config.body as Json)["bulk"]).toEqual({ supported: true, maxOperations: 2, maxPayloadSize: 1000 });
  });
});

describe("malformed operations", () => {
  it("answers 400 per operation (bad method, missing path, POST without bulkId, missing data) without aborting the rest", async () => {
    const t = await createTestApp();
    const existing = await createUser(t, "existing");
    const results = await bulk(t, [
      { method: "GET", path: "/Users", bulkId: "m1", data: userBody("get") },
      { method: "FROB", path: "/Users", bulkId: "m2", data: userBody("frob") },
      { method: "POST", bulkId: "m3", data: userBody("nopath") },
      { method: "POST", path: "/Users", data: userBody("nobulkid") },
      { method: "POST", path: "/Users", bulkId: "m5" },
      { method: "PATCH", path: `/Users/${String(existing["id"])}` },
      { method: "PUT", path: `/Users/${String(existing["id"])}`, data: "not an object" },
      { path: "/Users", bulkId: "m8", data: userBody("nomethod") },
      { method: "POST", path: "/Users", bulkId: "ok", data: userBody("fine") },
    ]);
    expect(results).toHaveLength(9);
    for (const result of results.slice(0, 8)) expectOperationError(result, 400);
    expect(results[8]).toMatchObject({ method: "POST", bulkId: "ok", status: "201" });
    expect(await userNamed(t, "fine")).toBeDefined();
    for (const userName of ["get", "frob", "nopath", "nobulkid", "nomethod"]) expect(await userNamed(t, userName)).toBeUndefined();
    expect(((await t.get(`/Users/${String(existing["id"])}`)).body as Json)["meta"]["version"]).toBe((existing["meta"] as Json)["version"]);
  });

  it("refuses a duplicated bulkId", async () => {
    const t = await createTestApp();
    const results = await bulk(t, [
      { method: "POST", path: "/Users", bulkId: "same", data: userBody("alice") },
      { method: "POST", path: "/Users", bulkId: "same", data: userBody("bob") },
    ]);
    expect(results).toHaveLength(2);
    expect(results[1]).toMatchObject({ bulkId: "same" });
    expectOperationError(results[1], 400);
    expect(await userNamed(t, "bob")).toBeUndefined();
  });

  it("answers 404 per operation for a path that names no endpoint", async () => {
    const t = await createTestApp();
    const results = await bulk(t, [
      { method: "POST", path: "/Widgets", bulkId: "w", data: { name: "x" } },
      { method: "POST", path: "/Users", bulkId: "ok", data: userBody("fine") },
    ]);
    expectOperationError(results[0], 404);
    expect(results[1]).toMatchObject({ status: "201" });
  });

  // Regression: decodeURIComponent threw, and the operation answered 500 and reached onError.
  it("answers 400 invalidSyntax per operation for a malformed %-escape in the path, as the same path on its own is", async () => {
    const t = await createTestApp();
    const results = await bulk(t, [
      { method: "PUT", path: "/Users/%E0%A4%A", data: userBody("escape") },
      { method: "DELETE", path: "/Groups/%" },
    ]);
    expectOperationError(results[0], 400, "invalidSyntax");
    expectOperationError(results[1], 400, "invalidSyntax");
    expect(t.errors).toEqual([]);
  });

  // Regression: bulkId substitution recursed once per level and overflowed the stack (a 500).
  it("runs an operation whose data is nested 10,000 levels deep: the depth is no fault of the service", async () => {
    const t = await createTestApp();
    // As JSON text: JSON.stringify itself recurses once per level.
    const deep = `${'{"a":'.repeat(10_000)}"x"${"}".repeat(10_000)}`;
    const post = (bulkId: string, userName: string, member: string): string =>
      `{"method":"POST","path":"/Users","bulkId":"${bulkId}","data":{"schemas":["${USER_SCHEMA}"],"userName":"${userName}",${member}}}`;
    const response = await t.post(
      "/Bulk",
      `{"schemas":["${BULK_REQUEST_SCHEMA}"],"Operations":[${post("deep", "deep", `"x":${deep}`)},${post("name", "deepname", `"name":{"givenName":${deep}}`)}]}`,
    );
    expect(response.status).toBe(200);
    const results = (response.body as Json)["Operations"] as Json[];
    expect(results[0]).toMatchObject({ bulkId: "deep", status: "201" });
    expectOperationError(results[1], 400, "invalidValue");
    expect(t.errors).toEqual([]);
  });
});

describe("preconditions (version → If-Match)", () => {
  it("answers 412 per operation when the version is stale, writing nothing, and runs with the current one", async () => {
    const t = await createTestApp();
    const user = await createUser(t, "alice");
    const id = String(user["id"]);
    const stale = String((user["meta"] as Json)["version"]);
    const bumped = await t.patch(`/Users/${id}`, patchBody({ op: "add", path: "nickName", value: "first" }));
    expect(bumped.status).toBe(200);
    const current = String(bumped.headers["etag"]);
    expect(current).not.toBe(stale);

    const results = await bulk(t, [
      { method: "PATCH", path: `/Users/${id}`, version: stale, data: patchBody({ op: "replace", path: "nickName", value: "stale-patch" }) },
      { method: "PUT", path: `/Users/${id}`, version: stale, data: userBody("alice", { nickName: "stale-put" }) },
      { method: "DELETE", path: `/Users/${id}`, version: stale },
      { method: "PATCH", path: `/Users/${id}`, version: current, data: patchBody({ op: "replace", path: "title", value: "current" }) },
    ]);
    expectOperationError(results[0], 412);
    expectOperationError(results[1], 412);
    expectOperationError(results[2], 412);
    expect(results[3]).toMatchObject({ method: "PATCH", status: "200" });
    const read = await t.get(`/Users/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ nickName: "first", title: "current" });
    expect(read.headers["etag"]).toBe(results[3]!["version"]);
  });

  it("deletes with the current version", async () => {
    const t = await createTestApp();
    const user = await createUser(t, "alice");
    const results = await bulk(t, [{ method: "DELETE", path: `/Users/${String(user["id"])}`, version: (user["meta"] as Json)["version"] }]);
    expect(results[0]).toMatchObject({ status: "204" });
    expectScimError(await t.get(`/Users/${String(user["id"])}`), 404);
  });
});
