/**
 * Tenancy (spec §2.1, architecture §3) and bearer authentication (spec §5, RFC 6750): every call is
 * scoped to the organization of the path (or the fixed one), and every authentication failure is
 * the same 401 that reveals nothing about other organizations.
 */
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createTokenStore } from "../../src/auth/hashed-token-store.js";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { GROUP_SCHEMA, LIST_SCHEMA, PATCH_SCHEMA, createTestApp, expectScimError, userBody } from "./harness.js";

interface Resource {
  readonly id: string;
  readonly userName?: string;
  readonly displayName?: string;
  readonly meta: { readonly location: string; readonly version: string };
  readonly members?: readonly { readonly value: string }[];
}

interface ListBody {
  readonly schemas: readonly string[];
  readonly totalResults: number;
  readonly Resources?: readonly Resource[];
}

function deactivate(): Record<string, unknown> {
  return { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "active", value: false }] };
}

describe("organization scoping through the mount path", () => {
  it("keeps a user created in acme invisible to globex on every endpoint", async () => {
    const t = await createTestApp();
    const created = await t.post("/Users", userBody("alice")).expect(201);
    const id = (created.body as Resource).id;
    const globex = t.base("globex");
    const globexToken = t.token.globex;

    expectScimError(await t.get(`${globex}/Users/${id}`, globexToken), 404);

    const list = await t.get(`${globex}/Users`, globexToken).expect(200);
    expect((list.body as ListBody).totalResults).toBe(0);
    expect((list.body as ListBody).Resources ?? []).toEqual([]);

    const filtered = await t.get(`${globex}/Users?filter=${encodeURIComponent('userName eq "alice"')}`, globexToken).expect(200);
    expect((filtered.body as ListBody).totalResults).toBe(0);

    const byId = await t.get(`${globex}/Users?filter=${encodeURIComponent(`id eq "${id}"`)}`, globexToken).expect(200);
    expect((byId.body as ListBody).totalResults).toBe(0);

    const searched = await t.post(`${globex}/Users/.search`, { filter: 'userName eq "alice"' }, globexToken).expect(200);
    expect((searched.body as ListBody).totalResults).toBe(0);

    expectScimError(await t.put(`${globex}/Users/${id}`, userBody("alice", { displayName: "hijacked" }), globexToken), 404);
    expectScimError(await t.patch(`${globex}/Users/${id}`, deactivate(), globexToken), 404);
    expectScimError(await t.delete(`${globex}/Users/${id}`, globexToken), 404);

    // acme still has the user, untouched by any of the above.
    const stillThere = await t.get(`/Users/${id}`).expect(200);
    expect(stillThere.body).toMatchObject({ id, userName: "alice", active: true });
    expect((stillThere.body as Record<string, unknown>)["displayName"]).toBeUndefined();
    expect((stillThere.body as Resource).meta.version).toBe((created.body as Resource).meta.version);
  });

  it("allows the same userName in two organizations, each getting its own resource", async () => {
    const t = await createTestApp();
    const inAcme = await t.post("/Users", userBody("bob")).expect(201);
    const inGlobex = await t.post(`${t.base("globex")}/Users`, userBody("bob"), t.token.globex).expect(201);
    expect((inAcme.body as Resource).id).not.toBe((inGlobex.body as Resource).id);
    expect((inGlobex.body as Resource).meta.location).toContain("/scim/Organizations/globex/v2/Users/");

    // Uniqueness still holds inside one organization.
    expectScimError(await t.post("/Users", userBody("BOB")), 409, "uniqueness");

    const acmeList = await t.get("/Users").expect(200);
    const globexList = await t.get(`${t.base("globex")}/Users`, t.token.globex).expect(200);
    expect((acmeList.body as ListBody).totalResults).toBe(1);
    expect((globexList.body as ListBody).totalResults).toBe(1);
    expect((acmeList.body as ListBody).Resources?.[0]?.id).toBe((inAcme.body as Resource).id);
    expect((globexList.body as ListBody).Resources?.[0]?.id).toBe((inGlobex.body as Resource).id);
  });

  it("does not let a globex group take an acme user as a member", async () => {
    const t = await createTestApp();
    const user = (await t.post("/Users", userBody("carol")).expect(201)).body as Resource;
    const group = await t
      .post(`${t.base("globex")}/Groups`, { schemas: [GROUP_SCHEMA], displayName: "Admins", members: [{ value: user.id }] }, t.token.globex)
      .expect(201);
    const read = await t.get(`${t.base("globex")}/Groups/${(group.body as Resource).id}`, t.token.globex).expect(200);
    expect((read.body as Resource).members ?? []).toEqual([]);
  });

  it("scopes a Bulk request to the organization of its path", async () => {
    const t = await createTestApp();
    const user = (await t.post("/Users", userBody("dave")).expect(201)).body as Resource;
    const response = await t
      .post(
        `${t.base("globex")}/Bulk`,
        {
          schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
          Operations: [{ method: "DELETE", path: `/Users/${user.id}` }],
        },
        t.token.globex,
      )
      .expect(200);
    const operations = (response.body as { Operations: { status: string }[] }).Operations;
    expect(operations).toHaveLength(1);
    expect(operations[0]?.status).toBe("404");
    await t.get(`/Users/${user.id}`).expect(200);
  });
});

describe("tenant isolation on every route", () => {
  const BULK_REQUEST = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";

  it("walks every SCIM route with globex's token and acme's ids and paths: 404 on globex's paths, 401 on acme's, and acme's data unchanged", async () => {
    // A fixed base URL, so snapshots taken through different ephemeral ports compare equal.
    const t = await createTestApp({ baseUrl: "https://scim.example.com/scim/Organizations/{orgId}/v2" });
    const user = (await t.post("/Users", userBody("ursula")).expect(201)).body as Resource;
    const group = (
      await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Acme staff", members: [{ value: user.id }] }).expect(201)
    ).body as Resource;
    const snapshot = async (): Promise<unknown> => ({
      user: (await t.get(`/Users/${user.id}`).expect(200)).body,
      group: (await t.get(`/Groups/${group.id}`).expect(200)).body,
      users: (await t.get("/Users").expect(200)).body,
      groups: (await t.get("/Groups?attributes=members,displayName").expect(200)).body,
    });
    const before = await snapshot();
    const eventsBefore = t.events.length;
    const token = t.token.globex;
    const globex = t.base("globex");
    const acme = t.base("acme");
    const patchUser = deactivate();
    const patchGroup = { schemas: [PATCH_SCHEMA], Operations: [{ op: "remove", path: `members[value eq "${user.id}"]` }] };
    const replaceGroup = { schemas: [GROUP_SCHEMA], displayName: "Hijacked", members: [] };
    const byId = (id: string): string => `?filter=${encodeURIComponent(`id eq "${id}"`)}`;

    // 1. globex's own paths, naming acme's resources: nothing is found, nothing is written.
    for (const [type, id, replacement, patch] of [
      ["Users", user.id, userBody("ursula", { displayName: "Hijacked" }), patchUser],
      ["Groups", group.id, replaceGroup, patchGroup],
    ] as const) {
      expectScimError(await t.get(`${globex}/${type}/${id}`, token), 404);
      expectScimError(await t.put(`${globex}/${type}/${id}`, replacement, token), 404);
      expectScimError(await t.patch(`${globex}/${type}/${id}`, patch, token), 404);
      expectScimError(await t.delete(`${globex}/${type}/${id}`, token), 404);
      expect((await t.get(`${globex}/${type}`, token).expect(200)).body).toMatchObject({ totalResults: 0 });
      expect((await t.get(`${globex}/${type}${byId(id)}`, token).expect(200)).body).toMatchObject({ totalResults: 0 });
      expect((await t.post(`${globex}/${type}/.search`, { filter: `id eq "${id}"` }, token).expect(200)).body).toMatchObject({
        totalResults: 0,
      });
    }
    expect((await t.get(`${globex}/Users?filter=${encodeURIComponent('userName eq "ursula"')}`, token).expect(200)).body).toMatchObject({
      totalResults: 0,
    });
    expect(
      (await t.get(`${globex}/Groups?filter=${encodeURIComponent(`members.value eq "${user.id}"`)}`, token).expect(200)).body,
    ).toMatchObject({ totalResults: 0 });

    // Bulk with each kind of operation aimed at acme's resources.
    const bulk = await t
      .post(
        `${globex}/Bulk`,
        {
          schemas: [BULK_REQUEST],
          Operations: [
            {
              method: "POST",
              path: "/Groups",
              bulkId: "g",
              data: { schemas: [GROUP_SCHEMA], displayName: "Globex", members: [{ value: user.id }] },
            },
            {
              method: "PATCH",
              path: "/Groups/bulkId:g",
              data: {
                schemas: [PATCH_SCHEMA],
                Operations: [{ op: "add", path: "members", value: [{ value: user.id }, { value: group.id }] }],
              },
            },
            { method: "PUT", path: `/Users/${user.id}`, data: userBody("ursula", { displayName: "Hijacked" }) },
            { method: "PATCH", path: `/Groups/${group.id}`, data: patchGroup },
            { method: "PUT", path: `/Groups/${group.id}`, data: replaceGroup },
            { method: "DELETE", path: `/Users/${user.id}` },
            { method: "DELETE", path: `/Groups/${group.id}` },
          ],
        },
        token,
      )
      .expect(200);
    const statuses = (bulk.body as { Operations: { status: string }[] }).Operations.map((operation) => operation.status);
    expect(statuses).toEqual(["201", "200", "404", "404", "404", "404", "404"]);
    // globex's own group exists, but acme's user and group did not become its members.
    const globexGroups = (await t.get(`${globex}/Groups?attributes=members`, token).expect(200)).body as ListBody;
    expect(globexGroups.totalResults).toBe(1);
    expect(globexGroups.Resources?.[0]?.members ?? []).toEqual([]);

    // Discovery serves the same definitions to everyone and names no acme data.
    for (const path of ["/Schemas", "/ResourceTypes", "/ResourceTypes/User", "/ServiceProviderConfig"]) {
      const served = await t.get(`${globex}${path}`, token).expect(200);
      expect(served.text).not.toContain(user.id);
      expect(served.text).not.toMatch(/acme/);
    }

    // 2. acme's paths with globex's token: every route is the same 401, the public configuration aside.
    const calls: readonly (() => request.Test)[] = [
      () => t.get(`${acme}/Users/${user.id}`, token),
      () => t.put(`${acme}/Users/${user.id}`, userBody("ursula"), token),
      () => t.patch(`${acme}/Users/${user.id}`, patchUser, token),
      () => t.delete(`${acme}/Users/${user.id}`, token),
      () => t.get(`${acme}/Groups/${group.id}`, token),
      () => t.put(`${acme}/Groups/${group.id}`, replaceGroup, token),
      () => t.patch(`${acme}/Groups/${group.id}`, patchGroup, token),
      () => t.delete(`${acme}/Groups/${group.id}`, token),
      () => t.get(`${acme}/Users`, token),
      () => t.get(`${acme}/Groups${byId(group.id)}`, token),
      () => t.post(`${acme}/Users`, userBody("intruder"), token),
      () => t.post(`${acme}/Groups`, { schemas: [GROUP_SCHEMA], displayName: "Intruders" }, token),
      () => t.post(`${acme}/Users/.search`, { filter: "userName pr" }, token),
      () => t.post(`${acme}/Groups/.search`, {}, token),
      () => t.post(`${acme}/Bulk`, { schemas: [BULK_REQUEST], Operations: [{ method: "DELETE", path: `/Users/${user.id}` }] }, token),
      () => t.get(`${acme}/Schemas`, token),
      () => t.get(`${acme}/ResourceTypes`, token),
      () => t.get(`${acme}/Me`, token),
    ];
    const refusals = [];
    for (const call of calls) refusals.push(await call());
    for (const refusal of refusals) {
      expectScimError(refusal, 401);
      expect(refusal.text).toBe(refusals[0]?.text);
    }
    await t.get(`${acme}/ServiceProviderConfig`, token).expect(200);

    // acme's data is exactly as it was, versions included, and no acme event was delivered.
    expect(await snapshot()).toEqual(before);
    expect(t.events.slice(eventsBefore).every((event) => event.orgId === "globex")).toBe(true);
  });
});

describe("mounting for one fixed organization", () => {
  async function fixedApp() {
    const store = memoryStore();
    const tokens = createTokenStore();
    const acme = (await tokens.issue("acme")).token;
    const globex = (await tokens.issue("globex")).token;
    const app = express();
    app.use("/scim/v2", createScimRouter({ store, auth: tokens, organization: "acme", onError: () => undefined }));
    // The same store, also served per organization from the path, to see where writes land.
    app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: tokens, onError: () => undefined }));
    return { app, acme, globex };
  }

  it("serves acme at /scim/v2 and scopes every call to acme", async () => {
    const { app, acme, globex } = await fixedApp();
    const created = await request(app)
      .post("/scim/v2/Users")
      .set("Authorization", `Bearer ${acme}`)
      .set("Content-Type", "application/scim+json")
      .send(JSON.stringify(userBody("erin")))
      .expect(201);
    const body = created.body as Resource;
    expect(body.meta.location).toMatch(/^http:\/\/[^/]+\/scim\/v2\/Users\//);
    expect(body.meta.location.endsWith(`/scim/v2/Users/${body.id}`)).toBe(true);
    expect(created.headers["location"]).toBe(body.meta.location);

    await request(app).get(`/scim/v2/Users/${body.id}`).set("Authorization", `Bearer ${acme}`).expect(200);
    await request(app).get(`/scim/Organizations/acme/v2/Users/${body.id}`).set("Authorization", `Bearer ${acme}`).expect(200);
    expectScimError(await request(app).get(`/scim/Organizations/globex/v2/Users/${body.id}`).set("Authorization", `Bearer ${globex}`), 404);

    const list = await request(app).get("/scim/v2/Users").set("Authorization", `Bearer ${acme}`).expect(200);
    expect((list.body as ListBody).schemas).toEqual([LIST_SCHEMA]);
    expect((list.body as ListBody).totalResults).toBe(1);
  });

  it("refuses another organization's token on the fixed mount with the same 401", async () => {
    const { app, globex } = await fixedApp();
    const foreign = await request(app).get("/scim/v2/Users").set("Authorization", `Bearer ${globex}`);
    const missing = await request(app).get("/scim/v2/Users");
    expectScimError(foreign, 401);
    expect(foreign.body).toEqual(missing.body);
    expect(String(foreign.headers["www-authenticate"])).toMatch(/^Bearer/);
  });

  it("serves /ServiceProviderConfig on the fixed mount without a token", async () => {
    const { app } = await fixedApp();
    const response = await request(app).get("/scim/v2/ServiceProviderConfig").expect(200);
    expect((response.body as { patch: { supported: boolean } }).patch.supported).toBe(true);
  });

  it("accepts a function that derives the organization from the request", async () => {
    const store = memoryStore();
    const tokens = createTokenStore();
    const acme = (await tokens.issue("acme")).token;
    const app = express();
    app.use("/scim/v2", createScimRouter({ store, auth: tokens, organization: (req) => req.get("x-tenant"), onError: () => undefined }));
    const created = await request(app)
      .post("/scim/v2/Users")
      .set("X-Tenant", "acme")
      .set("Authorization", `Bearer ${acme}`)
      .set("Content-Type", "application/scim+json")
      .send(JSON.stringify(userBody("frank")))
      .expect(201);
    const listed = await store.list({
      orgId: "acme",
      resourceType: "User",
      page: { kind: "index", startIndex: 1, count: 10 },
      members: false,
    });
    expect(listed.resources.map((resource) => resource.id)).toEqual([(created.body as Resource).id]);
    // The acme token does not work for a different derived tenant.
    expectScimError(await request(app).get("/scim/v2/Users").set("X-Tenant", "globex").set("Authorization", `Bearer ${acme}`), 401);
  });

  it("answers a request for which the organization function finds no organization with a 4xx, not a 500", async () => {
    const store = memoryStore();
    const tokens = createTokenStore();
    const acme = (await tokens.issue("acme")).token;
    const errors: unknown[] = [];
    const app = express();
    app.use(
      "/scim/v2",
      createScimRouter({ store, auth: tokens, organization: (req) => req.get("x-tenant"), onError: (error) => errors.push(error) }),
    );
    // The option's type allows undefined: "this request names no organization" is the client's doing.
    const response = await request(app).get("/scim/v2/Users").set("Authorization", `Bearer ${acme}`);
    expect(response.status, response.text).toBeGreaterThanOrEqual(400);
    expect(response.status, response.text).toBeLessThan(500);
    expectScimError(response, response.status);
    expect(errors).toEqual([]);
  });
});

describe("authentication", () => {
  const protectedCalls: readonly {
    readonly name: string;
    readonly method: "get" | "post";
    readonly path: string;
    readonly body?: unknown;
  }[] = [
    { name: "GET /Schemas", method: "get", path: "/Schemas" },
    { name: "GET /Schemas/{id}", method: "get", path: "/Schemas/urn:ietf:params:scim:schemas:core:2.0:User" },
    { name: "GET /ResourceTypes", method: "get", path: "/ResourceTypes" },
    { name: "GET /ResourceTypes/User", method: "get", path: "/ResourceTypes/User" },
    { name: "GET /Users", method: "get", path: "/Users" },
    { name: "GET /Users/{id}", method: "get", path: "/Users/some-id" },
    { name: "POST /Users", method: "post", path: "/Users", body: userBody("nobody") },
    { name: "GET /Groups", method: "get", path: "/Groups" },
    { name: "POST /Groups", method: "post", path: "/Groups", body: { schemas: [GROUP_SCHEMA], displayName: "x" } },
    { name: "POST /Users/.search", method: "post", path: "/Users/.search", body: {} },
    { name: "POST /Groups/.search", method: "post", path: "/Groups/.search", body: {} },
    {
      name: "POST /Bulk",
      method: "post",
      path: "/Bulk",
      body: { schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"], Operations: [] },
    },
    { name: "GET an unknown path", method: "get", path: "/NoSuchThing" },
    { name: "GET /Me", method: "get", path: "/Me" },
  ];

  it("serves GET /ServiceProviderConfig without any Authorization header", async () => {
    const t = await createTestApp();
    const response = await request(t.app).get(`${t.base()}/ServiceProviderConfig`).expect(200);
    expect(String(response.headers["content-type"])).toMatch(/^application\/scim\+json/);
    expect((response.body as { schemas: string[] }).schemas).toEqual(["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"]);
  });

  it("serves GET /ServiceProviderConfig even with a wrong token", async () => {
    const t = await createTestApp();
    await request(t.app).get(`${t.base()}/ServiceProviderConfig`).set("Authorization", "Bearer wrong").expect(200);
  });

  it("serves GET /ServiceProviderConfig for an organization nobody issued a token to", async () => {
    const t = await createTestApp();
    await request(t.app)
      .get(`${t.base("initech")}/ServiceProviderConfig`)
      .expect(200);
  });

  for (const call of protectedCalls) {
    it(`requires a bearer token for ${call.name}`, async () => {
      const t = await createTestApp();
      let test = request(t.app)[call.method](`${t.base()}${call.path}`);
      if (call.body !== undefined) test = test.set("Content-Type", "application/scim+json").send(JSON.stringify(call.body));
      const response = await test;
      expectScimError(response, 401);
      expect(String(response.headers["www-authenticate"])).toMatch(/^Bearer\b/);
      const stored = await t.store.list({
        orgId: "acme",
        resourceType: "User",
        page: { kind: "index", startIndex: 1, count: 10 },
        members: false,
      });
      expect(stored.totalResults).toBe(0);
    });
  }

  it("accepts the scheme in any case", async () => {
    const t = await createTestApp();
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      const response = await request(t.app).get(`${t.base()}/Users`).set("Authorization", `${scheme} ${t.token.acme}`);
      expect(response.status, scheme).toBe(200);
    }
  });

  it("answers every kind of failure with the identical 401", async () => {
    const t = await createTestApp();
    const path = `${t.base()}/Users`;
    const failures: readonly { readonly name: string; readonly send: () => request.Test }[] = [
      { name: "no header", send: () => request(t.app).get(path) },
      {
        name: "Basic scheme",
        send: () =>
          request(t.app)
            .get(path)
            .set("Authorization", `Basic ${Buffer.from("acme:secret").toString("base64")}`),
      },
      { name: "Basic with the real token", send: () => request(t.app).get(path).set("Authorization", `Basic ${t.token.acme}`) },
      { name: "token without scheme", send: () => request(t.app).get(path).set("Authorization", t.token.acme) },
      { name: "empty token", send: () => request(t.app).get(path).set("Authorization", "Bearer ") },
      { name: "scheme only", send: () => request(t.app).get(path).set("Authorization", "Bearer") },
      { name: "unknown token", send: () => request(t.app).get(path).set("Authorization", "Bearer scimkit_not-a-real-token") },
      { name: "token with a typo", send: () => request(t.app).get(path).set("Authorization", `Bearer ${t.token.acme}x`) },
      {
        name: "acme's token on globex",
        send: () =>
          request(t.app)
            .get(`${t.base("globex")}/Users`)
            .set("Authorization", `Bearer ${t.token.acme}`),
      },
      { name: "globex's token on acme", send: () => request(t.app).get(path).set("Authorization", `Bearer ${t.token.globex}`) },
      {
        name: "acme's token on a nonexistent org",
        send: () =>
          request(t.app)
            .get(`${t.base("initech")}/Users`)
            .set("Authorization", `Bearer ${t.token.acme}`),
      },
      { name: "no token on a nonexistent org", send: () => request(t.app).get(`${t.base("initech")}/Users`) },
    ];
    const responses = [];
    for (const failure of failures) {
      const response = await failure.send();
      expectScimError(response, 401);
      responses.push({ name: failure.name, response });
    }
    const [first] = responses;
    if (!first) throw new Error("no responses");
    for (const { name, response } of responses) {
      expect(response.status, name).toBe(401);
      expect(response.body, name).toEqual(first.response.body);
      expect(response.text, name).toBe(first.response.text);
      expect(response.headers["www-authenticate"], name).toBe(first.response.headers["www-authenticate"]);
      expect(String(response.headers["www-authenticate"]), name).toMatch(/^Bearer\b/);
    }
    // The body never names the organizations involved.
    expect(first.response.text).not.toMatch(/acme|globex|initech/i);
  });

  it("stops accepting a rotated token on the next request and accepts the new one", async () => {
    const t = await createTestApp();
    await t.get("/Users").expect(200);
    const [record] = await t.tokens.list("acme");
    if (!record) throw new Error("acme has no token");
    const rotated = await t.tokens.rotate("acme", record.id);
    if (!rotated) throw new Error("rotation failed");
    expectScimError(await t.get("/Users", t.token.acme), 401);
    await t.get("/Users", rotated.token).expect(200);
    // The new token is acme's only.
    expectScimError(await t.get(`${t.base("globex")}/Users`, rotated.token), 401);
  });

  it("stops accepting a revoked token on the next request", async () => {
    const t = await createTestApp();
    await t.get("/Users").expect(200);
    const [record] = await t.tokens.list("acme");
    if (!record) throw new Error("acme has no token");
    expect(await t.tokens.revoke("acme", record.id)).toBe(true);
    expectScimError(await t.get("/Users", t.token.acme), 401);
    // globex is unaffected.
    await t.get(`${t.base("globex")}/Users`, t.token.globex).expect(200);
  });

  it("accepts a newly issued token alongside the existing one", async () => {
    const t = await createTestApp();
    const second = await t.tokens.issue("acme", { label: "second" });
    await t.get("/Users", second.token).expect(200);
    await t.get("/Users", t.token.acme).expect(200);
  });
});
