/**
 * PATCH with `path` naming a whole extension schema (issue 15 item 2; RFC 7644 §3.5.2, §3.10):
 * `add` merges into the extension, `replace` replaces its attributes, `remove` takes it and its URN
 * away; the value is validated as inside a path-less PATCH. Through HTTP, with events and If-Match.
 */
import { describe, expect, it } from "vitest";
import { describePostgres } from "../../src/store/sql/postgres-test-database.fixture.js";
import { ENTERPRISE_SCHEMA, USER_SCHEMA, createTestApp, expectScimError, postgresStores, userBody, type TestApp } from "./harness.js";
import { BULK_REQUEST_SCHEMA, createUser, patchBody, type Json } from "./provisioning-helpers.js";

const enterprise = { department: "Tour Operations", costCenter: "4130", manager: { value: "26118915-6090-4610-87e4-49d8ca9f808d" } };

async function enterpriseUser(t: TestApp, userName = "bjensen"): Promise<{ id: string; etag: string }> {
  const response = await t.post(
    "/Users",
    userBody(userName, { schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA], [ENTERPRISE_SCHEMA]: enterprise }),
  );
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { id: (response.body as Json)["id"] as string, etag: String(response.headers["etag"]) };
}

async function extensionOf(t: TestApp, id: string): Promise<unknown> {
  return ((await t.get(`/Users/${id}`).expect(200)).body as Json)[ENTERPRISE_SCHEMA];
}

describe("PATCH of a whole extension", () => {
  it("add merges the value's attributes into the extension, and reports user.updated", async () => {
    const t = await createTestApp();
    const { id } = await enterpriseUser(t);
    t.events.length = 0;
    const response = await t.patch(
      `/Users/${id}`,
      patchBody({ op: "add", path: ENTERPRISE_SCHEMA, value: { department: "Sales", division: "East" } }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect((response.body as Json)[ENTERPRISE_SCHEMA]).toEqual({ ...enterprise, department: "Sales", division: "East" });
    expect(await extensionOf(t, id)).toEqual({ ...enterprise, department: "Sales", division: "East" });
    expect(t.events.map((event) => event.type)).toEqual(["user.updated"]);
  });

  it("add creates the extension on a user without it, URN in schemas", async () => {
    const t = await createTestApp();
    const id = (await createUser(t, "plain"))["id"] as string;
    const response = await t
      .patch(`/Users/${id}`, patchBody({ op: "add", path: ENTERPRISE_SCHEMA, value: { employeeNumber: "42" } }))
      .expect(200);
    expect((response.body as Json)["schemas"]).toEqual([USER_SCHEMA, ENTERPRISE_SCHEMA]);
    expect(await extensionOf(t, id)).toEqual({ employeeNumber: "42" });
  });

  it("replace leaves exactly the value's attributes", async () => {
    const t = await createTestApp();
    const { id } = await enterpriseUser(t);
    await t.patch(`/Users/${id}`, patchBody({ op: "replace", path: ENTERPRISE_SCHEMA, value: { division: "West" } })).expect(200);
    expect(await extensionOf(t, id)).toEqual({ division: "West" });
  });

  it("remove takes the extension and its URN away; again, it changes nothing and keeps the version", async () => {
    const t = await createTestApp();
    const { id } = await enterpriseUser(t);
    const removed = await t.patch(`/Users/${id}`, patchBody({ op: "remove", path: ENTERPRISE_SCHEMA })).expect(200);
    const body = removed.body as Json;
    expect(body).not.toHaveProperty(ENTERPRISE_SCHEMA);
    expect(body["schemas"]).toEqual([USER_SCHEMA]);
    expect(await extensionOf(t, id)).toBeUndefined();
    t.events.length = 0;
    const again = await t.patch(`/Users/${id}`, patchBody({ op: "remove", path: ENTERPRISE_SCHEMA })).expect(200);
    expect(again.headers["etag"]).toBe(removed.headers["etag"]);
    expect(t.events).toEqual([]);
  });

  it("keeps URN-qualified attribute paths working beside it", async () => {
    const t = await createTestApp();
    const { id } = await enterpriseUser(t);
    await t
      .patch(
        `/Users/${id}`,
        patchBody(
          { op: "replace", path: `${ENTERPRISE_SCHEMA}:manager`, value: { value: "m2" } },
          { op: "remove", path: `${ENTERPRISE_SCHEMA}:costCenter` },
        ),
      )
      .expect(200);
    expect(await extensionOf(t, id)).toEqual({ department: "Tour Operations", manager: { value: "m2" } });
  });

  it("answers the same invalidValue as a path-less PATCH for a bad value, and writes nothing", async () => {
    const t = await createTestApp();
    const { id, etag } = await enterpriseUser(t);
    const value = { department: 7 };
    const withPath = expectScimError(
      await t.patch(`/Users/${id}`, patchBody({ op: "add", path: ENTERPRISE_SCHEMA, value })),
      400,
      "invalidValue",
    );
    const pathless = expectScimError(
      await t.patch(`/Users/${id}`, patchBody({ op: "add", value: { [ENTERPRISE_SCHEMA]: value } })),
      400,
      "invalidValue",
    );
    expect(withPath.detail).toBe(pathless.detail);
    expectScimError(
      await t.patch(`/Users/${id}`, patchBody({ op: "replace", path: ENTERPRISE_SCHEMA, value: "Sales" })),
      400,
      "invalidValue",
    );
    expectScimError(
      await t.patch(`/Users/${id}`, patchBody({ op: "remove", path: ENTERPRISE_SCHEMA, value: { department: "x" } })),
      400,
      "invalidValue",
    );
    expect((await t.get(`/Users/${id}`)).headers["etag"]).toBe(etag);
  });

  it("honours If-Match: a stale version is 412 with nothing written, the current one applies", async () => {
    const t = await createTestApp();
    const { id, etag } = await enterpriseUser(t);
    await t.patch(`/Users/${id}`, patchBody({ op: "add", path: ENTERPRISE_SCHEMA, value: { division: "East" } })).expect(200);
    expectScimError(await t.patch(`/Users/${id}`, patchBody({ op: "remove", path: ENTERPRISE_SCHEMA })).set("If-Match", etag), 412);
    expect(await extensionOf(t, id)).toMatchObject({ division: "East" });
    const current = String((await t.get(`/Users/${id}`)).headers["etag"]);
    const removed = await t
      .patch(`/Users/${id}`, patchBody({ op: "remove", path: ENTERPRISE_SCHEMA }))
      .set("If-Match", current)
      .expect(200);
    expect(removed.headers["etag"]).not.toBe(current);
  });

  it("works in /Bulk PATCH operations", async () => {
    const t = await createTestApp();
    const { id } = await enterpriseUser(t);
    const response = await t
      .post("/Bulk", {
        schemas: [BULK_REQUEST_SCHEMA],
        Operations: [
          {
            method: "PATCH",
            path: `/Users/${id}`,
            data: patchBody({ op: "replace", path: ENTERPRISE_SCHEMA, value: { costCenter: "1" } }),
          },
        ],
      })
      .expect(200);
    expect(((response.body as Json)["Operations"] as Json[])[0]?.["status"]).toBe("200");
    expect(await extensionOf(t, id)).toEqual({ costCenter: "1" });
  });
});

describePostgres("PATCH of a whole extension on PostgreSQL", (url) => {
  const openStore = postgresStores(url);

  it("add, replace and remove land in the database", async () => {
    const t = await createTestApp({ store: await openStore() });
    const { id } = await enterpriseUser(t, "pg.extension");
    await t.patch(`/Users/${id}`, patchBody({ op: "add", path: ENTERPRISE_SCHEMA, value: { division: "East" } })).expect(200);
    expect(await extensionOf(t, id)).toEqual({ ...enterprise, division: "East" });
    await t.patch(`/Users/${id}`, patchBody({ op: "replace", path: ENTERPRISE_SCHEMA, value: { division: "West" } })).expect(200);
    expect(await extensionOf(t, id)).toEqual({ division: "West" });
    await t.patch(`/Users/${id}`, patchBody({ op: "remove", path: ENTERPRISE_SCHEMA })).expect(200);
    expect(await extensionOf(t, id)).toBeUndefined();
  });
});
