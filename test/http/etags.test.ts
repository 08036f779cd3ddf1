/**
 * ETags (RFC 7644 §3.14, RFC 7232): the `ETag` header of every resource response is its
 * `meta.version`; `If-Match` guards PUT, PATCH and DELETE with 412, and `If-None-Match` answers
 * 304 for the current version.
 */
import { describe, expect, it } from "vitest";
import { GROUP_SCHEMA, PATCH_SCHEMA, createTestApp, expectScimError, userBody, type TestApp } from "./harness.js";

interface Resource {
  readonly id: string;
  readonly displayName?: string;
  readonly active?: boolean;
  readonly meta: { readonly location: string; readonly version: string };
  readonly members?: readonly { readonly value: string }[];
}

function replaceDisplayName(value: string): Record<string, unknown> {
  return { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "displayName", value }] };
}

/** A user whose first version is stale: created, then changed once. */
async function userWithStaleTag(t: TestApp): Promise<{ id: string; stale: string; current: Resource }> {
  const created = await t.post("/Users", userBody("ann")).expect(201);
  const id = (created.body as Resource).id;
  const stale = String(created.headers["etag"]);
  const updated = await t.patch(`/Users/${id}`, replaceDisplayName("Ann v2")).expect(200);
  expect(updated.headers["etag"]).not.toBe(stale);
  return { id, stale, current: updated.body as Resource };
}

describe("the ETag header", () => {
  it("equals meta.version on create, read, replace and patch of a user", async () => {
    const t = await createTestApp();
    const created = await t.post("/Users", userBody("ann")).expect(201);
    const id = (created.body as Resource).id;
    const responses = [
      created,
      await t.get(`/Users/${id}`).expect(200),
      await t.put(`/Users/${id}`, userBody("ann", { displayName: "Ann" })).expect(200),
      await t.patch(`/Users/${id}`, replaceDisplayName("Annie")).expect(200),
    ];
    const versions = new Set<string>();
    for (const response of responses) {
      const body = response.body as Resource;
      expect(typeof response.headers["etag"]).toBe("string");
      expect(response.headers["etag"]).toBe(body.meta.version);
      versions.add(body.meta.version);
    }
    // create, PUT and PATCH each produced a new version; the read repeated the current one.
    expect(versions.size).toBe(3);
    // A projection without meta still carries the resource's tag in the header.
    const projected = await t.get(`/Users/${id}?attributes=userName`).expect(200);
    expect(projected.headers["etag"]).toBe((responses[3]!.body as Resource).meta.version);
  });

  it("equals meta.version on create, read and replace of a group, and is sent with a 204 PATCH", async () => {
    const t = await createTestApp();
    const created = await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Admins" }).expect(201);
    const id = (created.body as Resource).id;
    expect(created.headers["etag"]).toBe((created.body as Resource).meta.version);
    const read = await t.get(`/Groups/${id}`).expect(200);
    expect(read.headers["etag"]).toBe((read.body as Resource).meta.version);
    const put = await t.put(`/Groups/${id}`, { schemas: [GROUP_SCHEMA], displayName: "Admins 2" }).expect(200);
    expect(put.headers["etag"]).toBe((put.body as Resource).meta.version);
    const patched = await t.patch(`/Groups/${id}`, replaceDisplayName("Admins 3"));
    expect([200, 204]).toContain(patched.status);
    const after = await t.get(`/Groups/${id}`).expect(200);
    expect(patched.headers["etag"]).toBe((after.body as Resource).meta.version);
    expect(after.headers["etag"]).not.toBe(put.headers["etag"]);
  });

  it("matches meta.version of each resource of a list", async () => {
    const t = await createTestApp();
    const created = await t.post("/Users", userBody("ann")).expect(201);
    const list = await t.get("/Users").expect(200);
    expect((list.body as { Resources: Resource[] }).Resources[0]?.meta.version).toBe(created.headers["etag"]);
  });
});

describe("If-Match", () => {
  it("refuses a PUT with a stale tag with 412 and leaves the user unchanged", async () => {
    const t = await createTestApp();
    const { id, stale, current } = await userWithStaleTag(t);
    expectScimError(await t.put(`/Users/${id}`, userBody("ann", { displayName: "lost update" })).set("If-Match", stale), 412);
    const after = (await t.get(`/Users/${id}`).expect(200)).body as Resource;
    expect(after.displayName).toBe("Ann v2");
    expect(after.meta.version).toBe(current.meta.version);
  });

  it("refuses a PATCH with a stale tag with 412 and leaves the user unchanged", async () => {
    const t = await createTestApp();
    const { id, stale, current } = await userWithStaleTag(t);
    expectScimError(await t.patch(`/Users/${id}`, replaceDisplayName("lost update")).set("If-Match", stale), 412);
    const after = (await t.get(`/Users/${id}`).expect(200)).body as Resource;
    expect(after.displayName).toBe("Ann v2");
    expect(after.meta.version).toBe(current.meta.version);
  });

  it("refuses a DELETE with a stale tag with 412 and keeps the user", async () => {
    const t = await createTestApp();
    const { id, stale, current } = await userWithStaleTag(t);
    expectScimError(await t.delete(`/Users/${id}`).set("If-Match", stale), 412);
    const after = (await t.get(`/Users/${id}`).expect(200)).body as Resource;
    expect(after.meta.version).toBe(current.meta.version);
  });

  it("refuses an invented tag, unquoted or strong, with 412", async () => {
    const t = await createTestApp();
    const { id, current } = await userWithStaleTag(t);
    for (const tag of ['W/"no-such-version"', '"no-such-version"', "no-such-version"]) {
      expectScimError(await t.patch(`/Users/${id}`, replaceDisplayName("x")).set("If-Match", tag), 412);
    }
    expect(((await t.get(`/Users/${id}`).expect(200)).body as Resource).meta.version).toBe(current.meta.version);
  });

  it("guards group writes: stale tags on PUT, PATCH and DELETE are 412 and change nothing", async () => {
    const t = await createTestApp();
    const user = (await t.post("/Users", userBody("member")).expect(201)).body as Resource;
    const created = await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Admins" }).expect(201);
    const id = (created.body as Resource).id;
    const stale = String(created.headers["etag"]);
    await t.put(`/Groups/${id}`, { schemas: [GROUP_SCHEMA], displayName: "Admins 2" }).expect(200);
    const current = (await t.get(`/Groups/${id}`).expect(200)).body as Resource;

    expectScimError(await t.put(`/Groups/${id}`, { schemas: [GROUP_SCHEMA], displayName: "X" }).set("If-Match", stale), 412);
    expectScimError(
      await t
        .patch(`/Groups/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: [{ value: user.id }] }] })
        .set("If-Match", stale),
      412,
    );
    expectScimError(await t.delete(`/Groups/${id}`).set("If-Match", stale), 412);

    const after = (await t.get(`/Groups/${id}`).expect(200)).body as Resource;
    expect(after.displayName).toBe("Admins 2");
    expect(after.members ?? []).toEqual([]);
    expect(after.meta.version).toBe(current.meta.version);
  });

  it("lets PUT, PATCH and DELETE through with the current tag", async () => {
    const t = await createTestApp();
    const created = await t.post("/Users", userBody("ann")).expect(201);
    const id = (created.body as Resource).id;
    const put = await t
      .put(`/Users/${id}`, userBody("ann", { displayName: "v2" }))
      .set("If-Match", String(created.headers["etag"]))
      .expect(200);
    expect((put.body as Resource).displayName).toBe("v2");
    const patch = await t.patch(`/Users/${id}`, replaceDisplayName("v3")).set("If-Match", String(put.headers["etag"])).expect(200);
    expect((patch.body as Resource).displayName).toBe("v3");
    await t.delete(`/Users/${id}`).set("If-Match", String(patch.headers["etag"])).expect(204);
    expectScimError(await t.get(`/Users/${id}`), 404);
  });

  it("accepts the current tag inside a list of tags", async () => {
    const t = await createTestApp();
    const created = await t.post("/Users", userBody("ann")).expect(201);
    const id = (created.body as Resource).id;
    await t
      .patch(`/Users/${id}`, replaceDisplayName("v2"))
      .set("If-Match", `W/"old", ${String(created.headers["etag"])}`)
      .expect(200);
  });

  it("lets PUT, PATCH and DELETE through with *", async () => {
    const t = await createTestApp();
    const { id } = await userWithStaleTag(t);
    const put = await t
      .put(`/Users/${id}`, userBody("ann", { displayName: "star put" }))
      .set("If-Match", "*")
      .expect(200);
    expect((put.body as Resource).displayName).toBe("star put");
    const patch = await t.patch(`/Users/${id}`, replaceDisplayName("star patch")).set("If-Match", "*").expect(200);
    expect((patch.body as Resource).displayName).toBe("star patch");
    await t.delete(`/Users/${id}`).set("If-Match", "*").expect(204);
    expectScimError(await t.get(`/Users/${id}`), 404);
  });

  it("answers If-Match on a resource that does not exist with 404, not 412", async () => {
    const t = await createTestApp();
    expectScimError(await t.delete("/Users/does-not-exist").set("If-Match", 'W/"1"'), 404);
  });
});

describe("If-None-Match", () => {
  it("answers the current tag with 304 and no body", async () => {
    const t = await createTestApp();
    const created = await t.post("/Users", userBody("ann")).expect(201);
    const id = (created.body as Resource).id;
    const tag = String(created.headers["etag"]);
    const response = await t.get(`/Users/${id}`).set("If-None-Match", tag);
    expect(response.status).toBe(304);
    expect(response.text ?? "").toBe("");
    expect(response.headers["etag"]).toBe(tag);
  });

  it("answers * with 304 for an existing resource", async () => {
    const t = await createTestApp();
    const id = ((await t.post("/Users", userBody("ann")).expect(201)).body as Resource).id;
    expect((await t.get(`/Users/${id}`).set("If-None-Match", "*")).status).toBe(304);
  });

  it("answers a stale tag with 200 and the current resource", async () => {
    const t = await createTestApp();
    const { id, stale, current } = await userWithStaleTag(t);
    const response = await t.get(`/Users/${id}`).set("If-None-Match", stale).expect(200);
    expect((response.body as Resource).displayName).toBe("Ann v2");
    expect(response.headers["etag"]).toBe(current.meta.version);
  });

  it("answers 304 for a group too", async () => {
    const t = await createTestApp();
    const created = await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Admins" }).expect(201);
    const response = await t.get(`/Groups/${(created.body as Resource).id}`).set("If-None-Match", String(created.headers["etag"]));
    expect(response.status).toBe(304);
    expect(response.text ?? "").toBe("");
  });

  it("answers If-None-Match on a missing resource with 404", async () => {
    const t = await createTestApp();
    expectScimError(await t.get("/Users/nope").set("If-None-Match", 'W/"1"'), 404);
  });
});
