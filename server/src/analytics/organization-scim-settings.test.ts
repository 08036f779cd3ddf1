/**
 * An organization's record as the source of its SCIM settings, through a real SCIM router: the
 * profile and the existing-user choice the operator sets hold from the next request on, each
 * request reads the record once for both, and an unauthenticated request never reads it.
 */
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createScimRouter, createTokenStore } from "scimkit";
import { memoryStore } from "scimkit/memory";
import type { AnalyticsStore } from "./analytics-store.js";
import { memoryAnalyticsStore } from "./memory/memory-analytics-store.js";
import { organizationScimSettings } from "./organization-scim-settings.js";

const NOW = "2025-03-01T09:00:00.000Z";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";

async function world() {
  const tokens = createTokenStore();
  const store = memoryAnalyticsStore({ resources: memoryStore(), tokens });
  await store.createOrganization({ id: "acme", name: "Acme", status: "active", createdAt: NOW, updatedAt: NOW });
  let reads = 0;
  const counted: AnalyticsStore = Object.assign(Object.create(store) as AnalyticsStore, {
    getOrganization: (...args: Parameters<AnalyticsStore["getOrganization"]>) => {
      reads += 1;
      return store.getOrganization(...args);
    },
  });
  const settings = organizationScimSettings(counted);
  const app = express();
  app.use(
    "/scim/Organizations/:orgId/v2",
    createScimRouter({
      store: memoryStore(),
      auth: settings.activeOnly(tokens),
      compatibility: settings.compatibility,
      existingUsers: settings.existingUsers,
    }),
  );
  const token = (await tokens.issue("acme")).token;
  const send = (method: "get" | "post" | "patch", path: string, body?: unknown) => {
    const test = request(app)[method](`/scim/Organizations/acme/v2${path}`).set("Authorization", `Bearer ${token}`);
    return body === undefined ? test : test.set("Content-Type", "application/scim+json").send(JSON.stringify(body));
  };
  const set = (change: Parameters<AnalyticsStore["updateOrganization"]>[2]) => store.updateOrganization({ all: true }, "acme", change);
  return { app, send, set, reads: () => reads };
}

describe("organizationScimSettings", () => {
  it("serves each organization under the profile and existing-user choice of its record, from the next request on", async () => {
    const w = await world();
    const created = await w.send("post", "/Users", { schemas: [USER], userName: "ada" });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const capitalized = {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "Replace", path: "displayName", value: "Ada" }],
    };
    // No setting: generic, every tolerance; POST of an existing userName is 409.
    expect((await w.send("patch", `/Users/${id}`, capitalized)).status).toBe(200);
    expect((await w.send("post", "/Users", { schemas: [USER], userName: "ADA" })).status).toBe(409);

    await w.set({ compatibility: "strict", existingUsers: "link", updatedAt: NOW });
    const refused = await w.send("patch", `/Users/${id}`, capitalized);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ scimType: "invalidSyntax" });
    const linked = await w.send("post", "/Users", { schemas: [USER], userName: "ADA", displayName: "Ada L." });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ id, displayName: "Ada L." });

    await w.set({ compatibility: null, existingUsers: null, updatedAt: NOW });
    expect((await w.send("patch", `/Users/${id}`, capitalized)).status).toBe(200);
    expect((await w.send("post", "/Users", { schemas: [USER], userName: "ada" })).status).toBe(409);
  });

  it("reads the record for the suspension check and once more for both settings of one request, and not at all without a valid token", async () => {
    const w = await world();
    const before = w.reads();
    expect((await w.send("post", "/Users", { schemas: [USER], userName: "grace" })).status).toBe(201);
    expect(w.reads() - before).toBe(2);
    const unauthenticated = w.reads();
    const refused = await request(w.app).get("/scim/Organizations/acme/v2/Users").set("Authorization", "Bearer wrong");
    expect(refused.status).toBe(401);
    expect(w.reads()).toBe(unauthenticated);
  });

  it("serves an organization its store does not know with the defaults given", async () => {
    const store = memoryAnalyticsStore({ resources: memoryStore(), tokens: createTokenStore() });
    const settings = organizationScimSettings(store, { compatibility: "okta", existingUsers: "link" });
    const request = {} as express.Request;
    expect(await settings.compatibility("nowhere", request)).toBe("okta");
    expect(await settings.existingUsers("nowhere", request)).toBe("link");
    expect(await organizationScimSettings(store).compatibility("nowhere", {} as express.Request)).toBe("generic");
  });
});
