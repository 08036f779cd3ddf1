import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { type Principal, type TokenVerifier, type VerifyContext, createScimRouter, createTokenStore } from "scimkit";
import { memoryStore } from "scimkit/memory";
import { activeOrganizationsOnly } from "./active-organizations-only.js";
import { organizationScimSettings } from "./organization-scim-settings.js";
import type { AnalyticsStore, OrganizationStatus } from "./analytics-store.js";
import { memoryAnalyticsStore } from "./memory/memory-analytics-store.js";

const NOW = "2025-03-01T09:00:00.000Z";
const CONTEXT: VerifyContext = { method: "GET", path: "/Users" };

async function storeWith(organizations: Readonly<Record<string, OrganizationStatus>>): Promise<AnalyticsStore> {
  const store = memoryAnalyticsStore({ resources: memoryStore(), tokens: createTokenStore() });
  for (const [id, status] of Object.entries(organizations)) {
    await store.createOrganization({ id, name: id, status, createdAt: NOW, updatedAt: NOW });
  }
  return store;
}

/** A verifier that accepts "good" on any organization and counts its calls. */
function acceptingGood(): TokenVerifier & { readonly calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async verify(token, orgId): Promise<Principal | null> {
      calls.push(orgId);
      return token === "good" ? { orgId, tokenId: "t1" } : null;
    },
  };
}

/** Counts the organization reads a store receives, to show when the wrapper consults it. */
function countingReads(store: AnalyticsStore): { readonly store: AnalyticsStore; readonly reads: () => number } {
  let reads = 0;
  const counted: AnalyticsStore = Object.assign(Object.create(store) as AnalyticsStore, {
    getOrganization: (...args: Parameters<AnalyticsStore["getOrganization"]>) => {
      reads += 1;
      return store.getOrganization(...args);
    },
  });
  return { store: counted, reads: () => reads };
}

describe("activeOrganizationsOnly", () => {
  it("passes the inner principal through on an active organization", async () => {
    const auth = activeOrganizationsOnly(acceptingGood(), await storeWith({ acme: "active" }));
    expect(await auth.verify("good", "acme", CONTEXT)).toEqual({ orgId: "acme", tokenId: "t1" });
  });

  it("answers null for a valid token of a suspended organization", async () => {
    const auth = activeOrganizationsOnly(acceptingGood(), await storeWith({ acme: "suspended" }));
    expect(await auth.verify("good", "acme", CONTEXT)).toBeNull();
  });

  it("answers null for a token of an organization the analytics store does not have (deleted, or never created)", async () => {
    const auth = activeOrganizationsOnly(acceptingGood(), await storeWith({ acme: "active" }));
    expect(await auth.verify("good", "deleted", CONTEXT)).toBeNull();
  });

  it("serves organizations the store does not know when told to (a SCIM-only deployment)", async () => {
    const store = await storeWith({ acme: "suspended" });
    const auth = organizationScimSettings(store, { unknownOrganizations: "serve" }).activeOnly(acceptingGood());
    expect(await auth.verify("good", "scim-only", CONTEXT)).toEqual({ orgId: "scim-only", tokenId: "t1" });
    expect(await auth.verify("good", "acme", CONTEXT)).toBeNull();
  });

  it("keeps a wrong token null and does not read the analytics store for it", async () => {
    const { store, reads } = countingReads(await storeWith({ acme: "active" }));
    const inner = acceptingGood();
    const auth = activeOrganizationsOnly(inner, store);
    expect(await auth.verify("bad", "acme", CONTEXT)).toBeNull();
    expect(inner.calls).toEqual(["acme"]);
    expect(reads()).toBe(0);
  });

  it("follows the status on every call: suspend, then reactivate", async () => {
    const store = await storeWith({ acme: "active" });
    const auth = activeOrganizationsOnly(acceptingGood(), store);
    await store.updateOrganization({ all: true }, "acme", { status: "suspended", updatedAt: NOW });
    expect(await auth.verify("good", "acme", CONTEXT)).toBeNull();
    await store.updateOrganization({ all: true }, "acme", { status: "active", updatedAt: NOW });
    expect(await auth.verify("good", "acme", CONTEXT)).toEqual({ orgId: "acme", tokenId: "t1" });
  });
});

describe("activeOrganizationsOnly behind the SCIM router", () => {
  async function app(): Promise<{ readonly app: express.Express; readonly analytics: AnalyticsStore; readonly token: string }> {
    const resources = memoryStore();
    const tokens = createTokenStore();
    const analytics = memoryAnalyticsStore({ resources, tokens });
    await analytics.createOrganization({ id: "acme", name: "Acme", status: "active", createdAt: NOW, updatedAt: NOW });
    const { token } = await tokens.issue("acme");
    const server = express();
    server.use("/scim/Organizations/:orgId/v2", createScimRouter({ store: resources, auth: activeOrganizationsOnly(tokens, analytics) }));
    return { app: server, analytics, token };
  }

  it("refuses a suspended organization's token with the same 401 as a wrong token, on the next request", async () => {
    const { app: server, analytics, token } = await app();
    await request(server).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${token}`).expect(200);

    await analytics.updateOrganization({ all: true }, "acme", { status: "suspended", updatedAt: NOW });
    const suspended = await request(server).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${token}`).expect(401);
    const wrong = await request(server).get("/scim/Organizations/acme/v2/Users").set("Authorization", "Bearer scimkit_wrong").expect(401);
    expect(suspended.body).toEqual(wrong.body);
    expect(suspended.headers["www-authenticate"]).toBe(wrong.headers["www-authenticate"]);
  });

  it("accepts the same token again once the organization is reactivated", async () => {
    const { app: server, analytics, token } = await app();
    await analytics.updateOrganization({ all: true }, "acme", { status: "suspended", updatedAt: NOW });
    await request(server).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${token}`).expect(401);

    await analytics.updateOrganization({ all: true }, "acme", { status: "active", updatedAt: NOW });
    const users = await request(server).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${token}`).expect(200);
    expect(users.body).toMatchObject({ totalResults: 0 });
  });

  it("keeps discovery open on a suspended organization, as it needs no token (spec §5.1)", async () => {
    const { app: server, analytics } = await app();
    await analytics.updateOrganization({ all: true }, "acme", { status: "suspended", updatedAt: NOW });
    await request(server).get("/scim/Organizations/acme/v2/ServiceProviderConfig").expect(200);
  });
});
