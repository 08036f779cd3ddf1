/**
 * Unique names under Unicode, through the router (RFC 7643 §2.1, architecture §3): `userName` and group
 * `displayName` in NFC and in NFD are one name — a 409 `uniqueness` on create, PUT and PATCH —
 * `userName eq` finds the holder in either form, and the stored value is what the client sent.
 * On this project's store (memory or SQLite) and on PostgreSQL.
 */
import { expect, it } from "vitest";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { GROUP_SCHEMA, createTestApp, expectScimError, userBody, describeOnEveryStore } from "./harness.js";
import { createGroup, createUser, patchBody, type Json } from "./provisioning-helpers.js";

const COMPOSED = "\u00c5ngstr\u00f6m";
const DECOMPOSED = "A\u030angstro\u0308m";

function unicodeChecks(storeFor: () => Promise<ResourceStore | undefined>): void {
  it("a userName in NFD is taken by its NFC form: 409 uniqueness on create, PATCH and PUT", async () => {
    const store = await storeFor();
    const t = await createTestApp(store ? { store } : {});
    const ada = await createUser(t, COMPOSED);
    expectScimError(await t.post("/Users", userBody(DECOMPOSED)), 409, "uniqueness");
    expectScimError(await t.post("/Users", userBody(DECOMPOSED.toLowerCase())), 409, "uniqueness");
    const bob = await createUser(t, "bob");
    expectScimError(
      await t.patch(`/Users/${String(bob["id"])}`, patchBody({ op: "replace", path: "userName", value: DECOMPOSED })),
      409,
      "uniqueness",
    );
    expectScimError(await t.put(`/Users/${String(bob["id"])}`, userBody(DECOMPOSED.toUpperCase())), 409, "uniqueness");
    // Renaming to the other form of one's own name is no clash, and keeps what was sent.
    const renamed = await t.patch(`/Users/${String(ada["id"])}`, patchBody({ op: "replace", path: "userName", value: DECOMPOSED }));
    expect(renamed.status, renamed.text).toBe(200);
    expect((renamed.body as Json)["userName"]).toBe(DECOMPOSED);
    expect(((await t.get(`/Users/${String(ada["id"])}`)).body as Json)["userName"]).toBe(DECOMPOSED);
  });

  it("userName eq finds the user in either form, and after a rename by the new name only", async () => {
    const store = await storeFor();
    const t = await createTestApp(store ? { store } : {});
    const ada = await createUser(t, DECOMPOSED);
    await createUser(t, "angstrom");
    const found = async (userName: string): Promise<string[]> => {
      const response = await t.get(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
      expect(response.status, response.text).toBe(200);
      return ((response.body as Json)["Resources"] as Json[]).map((user) => String(user["id"]));
    };
    expect(await found(COMPOSED)).toEqual([String(ada["id"])]);
    expect(await found(DECOMPOSED)).toEqual([String(ada["id"])]);
    expect(await found(COMPOSED.toUpperCase())).toEqual([String(ada["id"])]);
    await t.put(`/Users/${String(ada["id"])}`, userBody("Zo\u00eb")).expect(200);
    expect(await found(COMPOSED)).toEqual([]);
    expect(await found("zoe\u0308")).toEqual([String(ada["id"])]);
    // The old name is free again in either form.
    await createUser(t, COMPOSED);
  });

  it("a group displayName in NFD is taken by its NFC form, also on rename", async () => {
    const store = await storeFor();
    const t = await createTestApp(store ? { store } : {});
    await createGroup(t, "Caf\u00e9");
    expectScimError(await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Cafe\u0301" }), 409, "uniqueness");
    const bar = await createGroup(t, "Bar");
    expectScimError(
      await t.patch(`/Groups/${String(bar["id"])}`, patchBody({ op: "replace", path: "displayName", value: "CAFE\u0301" })),
      409,
      "uniqueness",
    );
    expectScimError(await t.put(`/Groups/${String(bar["id"])}`, { schemas: [GROUP_SCHEMA], displayName: "cafe\u0301" }), 409, "uniqueness");
  });
}

describeOnEveryStore("unique names under Unicode", unicodeChecks);
