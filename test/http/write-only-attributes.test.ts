/**
 * writeOnly attributes (RFC 7643 §4.1.1 `password`) are never returned, and — since scimkit does
 * not support changePassword — never kept: a cleartext password must not reach the store.
 */
import { describe, expect, it } from "vitest";
import { PATCH_SCHEMA, createTestApp, userBody } from "./harness.js";

describe("password", () => {
  it("is neither returned nor stored on POST, PUT or PATCH", async () => {
    const t = await createTestApp();
    const created = await t.post("/Users", userBody("ada", { password: "hunter2-create" }));
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain("hunter2");
    const id = created.body.id as string;

    const replaced = await t.put(`/Users/${id}`, userBody("ada", { password: "hunter2-put" }));
    expect(replaced.status).toBe(200);
    const patched = await t.patch(`/Users/${id}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: "replace", path: "password", value: "hunter2-patch" }],
    });
    expect(patched.status).toBe(200);
    expect(JSON.stringify(patched.body)).not.toContain("hunter2");

    const stored = await t.store.get({ orgId: "acme", resourceType: "User", id, members: false });
    expect(stored?.attributes["userName"]).toBe("ada");
    expect(JSON.stringify(stored)).not.toContain("hunter2");
    expect(t.events.every((event) => !JSON.stringify(event).includes("hunter2"))).toBe(true);
  });
});
