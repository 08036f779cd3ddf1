/**
 * Issue 30, point 3, in one process: a request for an organization the directory homes in another
 * region is answered 421 before anything else — the resource store, the token verifier and the
 * analytics store are never called — and counted once per request; an organization of this region
 * or one nobody knows goes on to the routers as before.
 */
import request from "supertest";
import { expect, it } from "vitest";
import { memoryAnalyticsStore } from "@scimkit/server";
import { createTokenStore, staticTokenVerifier, type TokenVerifier } from "scimkit";
import { memoryStore } from "scimkit/memory";
import type { ResourceStore } from "scimkit/store";
import { createHostApp } from "../host-server.js";
import { loadRegionDirectory } from "./region-directory.js";

const TOKEN = "token-acme-here-0123456789abcdef0123456789";

/** `target` with every method call counted in `calls`. */
function counted<T extends object>(target: T, calls: string[]): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      const value: unknown = Reflect.get(object, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(key));
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

it("answers 421 for an organization homed elsewhere without calling a store or a verifier, and counts each request once", async () => {
  const calls: string[] = [];
  const resources = memoryStore();
  const analytics = memoryAnalyticsStore({ resources, tokens: createTokenStore() });
  const directory = await loadRegionDirectory({
    self: "eu",
    baseUrls: { eu: "https://scim.eu.example.com", us: "https://scim.example.com" },
    store: analytics,
  });
  await directory.replacePeer(
    "us",
    [{ id: "globex", name: "Globex", homeRegion: "us", status: "active", updatedAt: "2026-12-07T10:00:00.000Z" }],
    new Set(),
  );
  const auth: TokenVerifier = staticTokenVerifier({ acme: [TOKEN] });
  const app = createHostApp({
    store: counted<ResourceStore>(resources, calls),
    auth: counted(auth, calls),
    regions: { directory, syncMs: 60_000 },
    log: () => {},
  });

  for (const [method, path] of [
    ["get", "/scim/Organizations/globex/v2/Users"],
    ["post", "/scim/Organizations/globex/v2/Users"],
    ["get", "/scim/Organizations/globex/v2/ServiceProviderConfig"],
    ["get", "/scim/Organizations/globex/events/jwks.json"],
    ["post", "/oauth/Organizations/globex/token"],
  ] as const) {
    const reply = await request(app)[method](path).set("Authorization", `Bearer ${TOKEN}`).send({});
    expect(reply.status, `${method} ${path}`).toBe(421);
    expect(reply.body).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "421" });
    expect(reply.body.detail).toContain("region us");
    expect(reply.body.detail).toContain(
      path.startsWith("/oauth")
        ? "https://scim.example.com/oauth/Organizations/globex/token"
        : "https://scim.example.com/scim/Organizations/globex/v2",
    );
  }
  expect(calls).toEqual([]);
  expect(directory.misdirected()).toEqual([expect.objectContaining({ orgId: "globex", homeRegion: "us", count: 5 })]);

  // This region's own organization, and one no region knows, reach the router (and its verifier) as before.
  expect((await request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${TOKEN}`)).status).toBe(200);
  expect((await request(app).get("/scim/Organizations/nobody/v2/Users").set("Authorization", `Bearer ${TOKEN}`)).status).toBe(401);
  expect(calls).toContain("verify");
  expect(directory.misdirected()[0]?.count).toBe(5);
});
