/**
 * What goes over the wire (RFC 7644 §3.1, §3.3, §3.8): accepted media types, the body limit,
 * malformed and non-object bodies, the response media type, `Location` and absolute
 * `meta.location` under the request's host, a configured base URL, or a trusted proxy's.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { PUBLIC_URL_SETTING } from "../../src/http/request-context/request-origin.js";
import { GROUP_SCHEMA, PATCH_SCHEMA, createTestApp, expectScimError, userBody, type TestApp } from "./harness.js";

interface Resource {
  readonly id: string;
  readonly meta: { readonly location: string; readonly version: string };
}

async function userCount(t: TestApp, org = "acme"): Promise<number> {
  const page = await t.store.list({ orgId: org, resourceType: "User", page: { kind: "index", startIndex: 1, count: 0 }, members: false });
  return page.totalResults;
}

async function groupCount(t: TestApp): Promise<number> {
  const page = await t.store.list({
    orgId: "acme",
    resourceType: "Group",
    page: { kind: "index", startIndex: 1, count: 0 },
    members: false,
  });
  return page.totalResults;
}

function rawPost(t: TestApp, path: string, contentType: string | undefined, body: string): request.Test {
  let test = request(t.app).post(`${t.base()}${path}`).set("Authorization", `Bearer ${t.token.acme}`);
  if (contentType !== undefined) test = test.set("Content-Type", contentType);
  return test.send(body);
}

describe("request media types", () => {
  const accepted = [
    "application/scim+json",
    "application/scim+json; charset=utf-8",
    "application/scim+json;charset=UTF-8",
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON",
  ];

  for (const [index, contentType] of accepted.entries()) {
    it(`accepts a create sent as ${contentType}`, async () => {
      const t = await createTestApp();
      const response = await rawPost(t, "/Users", contentType, JSON.stringify(userBody(`user${index}`))).expect(201);
      expect((response.body as { userName: string }).userName).toBe(`user${index}`);
      expect(await userCount(t)).toBe(1);
    });
  }

  it("accepts PUT, PATCH and .search sent as application/json; charset=utf-8", async () => {
    const t = await createTestApp();
    const created = (await t.post("/Users", userBody("ann")).expect(201)).body as Resource;
    const type = "application/json; charset=utf-8";
    const base = `${t.base()}/Users`;
    const auth = `Bearer ${t.token.acme}`;
    const put = await request(t.app)
      .put(`${base}/${created.id}`)
      .set("Authorization", auth)
      .set("Content-Type", type)
      .send(JSON.stringify(userBody("ann", { displayName: "Ann" })))
      .expect(200);
    expect((put.body as { displayName: string }).displayName).toBe("Ann");
    const patch = await request(t.app)
      .patch(`${base}/${created.id}`)
      .set("Authorization", auth)
      .set("Content-Type", type)
      .send(JSON.stringify({ schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "displayName", value: "Annie" }] }))
      .expect(200);
    expect((patch.body as { displayName: string }).displayName).toBe("Annie");
    const search = await request(t.app)
      .post(`${base}/.search`)
      .set("Authorization", auth)
      .set("Content-Type", type)
      .send(JSON.stringify({ filter: 'displayName eq "Annie"' }))
      .expect(200);
    expect((search.body as { totalResults: number }).totalResults).toBe(1);
  });

  for (const contentType of ["text/plain", "application/xml", "application/x-www-form-urlencoded", "text/json"]) {
    it(`refuses a body sent as ${contentType} with a 415 SCIM error, storing nothing`, async () => {
      const t = await createTestApp();
      const response = await rawPost(t, "/Users", contentType, JSON.stringify(userBody("zed")));
      expectScimError(response, 415);
      expect(await userCount(t)).toBe(0);
    });
  }

  it("refuses a charset other than UTF-8 with a 415 SCIM error, storing nothing", async () => {
    const t = await createTestApp();
    expectScimError(await rawPost(t, "/Users", "application/scim+json; charset=latin1", JSON.stringify(userBody("zed"))), 415);
    expect(await userCount(t)).toBe(0);
  });

  it("refuses a PUT and a PATCH sent as text/plain with 415 and leaves the user unchanged", async () => {
    const t = await createTestApp();
    const created = (await t.post("/Users", userBody("ann")).expect(201)).body as Resource;
    const auth = `Bearer ${t.token.acme}`;
    expectScimError(
      await request(t.app)
        .put(`${t.base()}/Users/${created.id}`)
        .set("Authorization", auth)
        .set("Content-Type", "text/plain")
        .send(JSON.stringify(userBody("ann", { displayName: "X" }))),
      415,
    );
    expectScimError(
      await request(t.app)
        .patch(`${t.base()}/Users/${created.id}`)
        .set("Authorization", auth)
        .set("Content-Type", "application/xml")
        .send("<PatchOp/>"),
      415,
    );
    const after = (await t.get(`/Users/${created.id}`).expect(200)).body as Resource;
    expect(after.meta.version).toBe(created.meta.version);
  });
});

describe("malformed and non-object bodies", () => {
  for (const body of ["{", '{"userName": }', "{'userName':'x'}", "not json", '{"schemas":["x"],}']) {
    it(`answers malformed JSON ${JSON.stringify(body)} with 400 invalidSyntax, storing nothing`, async () => {
      const t = await createTestApp();
      expectScimError(await rawPost(t, "/Users", "application/scim+json", body), 400, "invalidSyntax");
      expect(await userCount(t)).toBe(0);
      expect(t.errors).toEqual([]);
    });
  }

  for (const body of ["[]", '"x"', "42", "null", "true", '[{"userName":"x"}]']) {
    it(`answers the non-object JSON body ${body} to POST /Users with 400, storing nothing`, async () => {
      const t = await createTestApp();
      expectScimError(await rawPost(t, "/Users", "application/scim+json", body), 400);
      expect(await userCount(t)).toBe(0);
      expect(t.errors).toEqual([]);
    });

    it(`answers the non-object JSON body ${body} to POST /Groups with 400, storing nothing`, async () => {
      const t = await createTestApp();
      expectScimError(await rawPost(t, "/Groups", "application/json", body), 400);
      expect(await groupCount(t)).toBe(0);
    });
  }

  it("answers non-object bodies to PUT, PATCH, .search and Bulk with 400 and changes nothing", async () => {
    const t = await createTestApp();
    const created = (await t.post("/Users", userBody("ann")).expect(201)).body as Resource;
    for (const body of ["[]", '"x"', "42"]) {
      expectScimError(await t.put(`/Users/${created.id}`, body), 400);
      expectScimError(await t.patch(`/Users/${created.id}`, body), 400);
      expectScimError(await t.post("/Users/.search", body), 400);
      expectScimError(await t.post("/Bulk", body), 400);
    }
    const after = (await t.get(`/Users/${created.id}`).expect(200)).body as Resource;
    expect(after.meta.version).toBe(created.meta.version);
    expect(await userCount(t)).toBe(1);
    expect(t.errors).toEqual([]);
  });

  it("answers a POST /Users with no body at all with 400", async () => {
    const t = await createTestApp();
    expectScimError(await request(t.app).post(`${t.base()}/Users`).set("Authorization", `Bearer ${t.token.acme}`), 400);
    expectScimError(await rawPost(t, "/Users", "application/scim+json", ""), 400);
    expect(await userCount(t)).toBe(0);
  });
});

describe("the body limit", () => {
  it("answers a body over bodyLimit with a 413 SCIM error, storing nothing", async () => {
    const t = await createTestApp({ bodyLimit: 2048 });
    const big = userBody("big", { displayName: "x".repeat(4096) });
    const response = await t.post("/Users", big);
    expectScimError(response, 413);
    expect(await userCount(t)).toBe(0);
    expect(t.errors).toEqual([]);
  });

  it("accepts a body under bodyLimit", async () => {
    const t = await createTestApp({ bodyLimit: 2048 });
    await t.post("/Users", userBody("small", { displayName: "x".repeat(500) })).expect(201);
    expect(await userCount(t)).toBe(1);
  });

  it('accepts a string limit such as "1kb"', async () => {
    const t = await createTestApp({ bodyLimit: "1kb" });
    expectScimError(await t.post("/Users", userBody("big", { displayName: "y".repeat(2000) })), 413);
    await t.post("/Users", userBody("fits")).expect(201);
    expect(await userCount(t)).toBe(1);
  });

  it("applies the limit to PUT, PATCH and .search as well", async () => {
    const t = await createTestApp({ bodyLimit: 1024 });
    const created = (await t.post("/Users", userBody("ann")).expect(201)).body as Resource;
    const huge = "z".repeat(2000);
    expectScimError(await t.put(`/Users/${created.id}`, userBody("ann", { displayName: huge })), 413);
    expectScimError(
      await t.patch(`/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "displayName", value: huge }] }),
      413,
    );
    expectScimError(await t.post("/Users/.search", { filter: `displayName eq "${huge}"` }), 413);
    const after = (await t.get(`/Users/${created.id}`).expect(200)).body as Resource;
    expect(after.meta.version).toBe(created.meta.version);
  });

  it("defaults to about one megabyte", async () => {
    const t = await createTestApp();
    await t.post("/Users", userBody("medium", { displayName: "m".repeat(500_000) })).expect(201);
    expectScimError(await t.post("/Users", userBody("large", { displayName: "l".repeat(1_100_000) })), 413);
    expect(await userCount(t)).toBe(1);
  });
});

describe("responses", () => {
  it("are application/scim+json for resources, lists, discovery and errors", async () => {
    const t = await createTestApp();
    const created = await t.post("/Users", userBody("ann")).expect(201);
    const responses = [
      created,
      await t.get(`/Users/${(created.body as Resource).id}`).expect(200),
      await t.get("/Users").expect(200),
      await t.post("/Users/.search", {}).expect(200),
      await t.get("/Schemas").expect(200),
      await t.get("/ResourceTypes").expect(200),
      await request(t.app).get(`${t.base()}/ServiceProviderConfig`).expect(200),
      await t.get("/Users/nope").expect(404),
      await request(t.app).get(`${t.base()}/Users`).expect(401),
    ];
    for (const [index, response] of responses.entries()) {
      expect(String(response.headers["content-type"]), `response ${index}`).toMatch(/^application\/scim\+json/);
      expect(() => JSON.parse(response.text) as unknown).not.toThrow();
      // No browser may read a body echoing client input as HTML (issue 27).
      expect(response.headers["x-content-type-options"], `response ${index}`).toBe("nosniff");
    }
  });

  it("sets Location on 201 to meta.location, absolute under the request's host", async () => {
    const t = await createTestApp();
    const response = await t.post("/Users", userBody("ann")).set("Host", "provisioning.test:8443").expect(201);
    const body = response.body as Resource;
    expect(body.meta.location).toBe(`http://provisioning.test:8443/scim/Organizations/acme/v2/Users/${body.id}`);
    expect(response.headers["location"]).toBe(body.meta.location);

    const group = await t
      .post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Admins" })
      .set("Host", "provisioning.test")
      .expect(201);
    const groupBody = group.body as Resource;
    expect(groupBody.meta.location).toBe(`http://provisioning.test/scim/Organizations/acme/v2/Groups/${groupBody.id}`);
    expect(group.headers["location"]).toBe(groupBody.meta.location);
  });

  it("renders meta.location for the host of each request, on reads and lists too", async () => {
    const t = await createTestApp();
    const created = (await t.post("/Users", userBody("ann")).expect(201)).body as Resource;
    const read = await t.get(`/Users/${created.id}`).set("Host", "other.test").expect(200);
    expect((read.body as Resource).meta.location).toBe(`http://other.test/scim/Organizations/acme/v2/Users/${created.id}`);
    const list = await t.get("/Users").set("Host", "list.test").expect(200);
    expect((list.body as { Resources: Resource[] }).Resources[0]?.meta.location).toBe(
      `http://list.test/scim/Organizations/acme/v2/Users/${created.id}`,
    );
  });

  it("uses a string baseUrl instead of the request's origin", async () => {
    const t = await createTestApp({ baseUrl: "https://scim.example.com/v2/" });
    const response = await t.post("/Users", userBody("ann")).expect(201);
    const body = response.body as Resource;
    expect(body.meta.location).toBe(`https://scim.example.com/v2/Users/${body.id}`);
    expect(response.headers["location"]).toBe(body.meta.location);
  });

  it("fills the {orgId} placeholder of a string baseUrl", async () => {
    const t = await createTestApp({ baseUrl: "https://scim.example.com/tenants/{orgId}/scim" });
    const acme = (await t.post("/Users", userBody("ann")).expect(201)).body as Resource;
    expect(acme.meta.location).toBe(`https://scim.example.com/tenants/acme/scim/Users/${acme.id}`);
    const globex = (await t.post(`${t.base("globex")}/Users`, userBody("ann"), t.token.globex).expect(201)).body as Resource;
    expect(globex.meta.location).toBe(`https://scim.example.com/tenants/globex/scim/Users/${globex.id}`);
  });

  it("calls a function baseUrl with the request and the organization", async () => {
    const seen: string[] = [];
    const t = await createTestApp({
      baseUrl: (req, orgId) => {
        seen.push(`${req.method} ${orgId}`);
        return `https://${orgId}.example.com/scim/v2`;
      },
    });
    const response = await t.post("/Users", userBody("ann")).expect(201);
    const body = response.body as Resource;
    expect(body.meta.location).toBe(`https://acme.example.com/scim/v2/Users/${body.id}`);
    expect(response.headers["location"]).toBe(body.meta.location);
    expect(seen).toContain("POST acme");
  });

  it("uses X-Forwarded-Proto and X-Forwarded-Host when the app trusts the proxy", async () => {
    const t = await createTestApp({}, (app) => app.set("trust proxy", true));
    const response = await t
      .post("/Users", userBody("ann"))
      .set("X-Forwarded-Proto", "https")
      .set("X-Forwarded-Host", "scim.example.com")
      .expect(201);
    const body = response.body as Resource;
    expect(body.meta.location).toBe(`https://scim.example.com/scim/Organizations/acme/v2/Users/${body.id}`);
    expect(response.headers["location"]).toBe(body.meta.location);
  });

  it("takes the first (client-facing) value of a list of forwarded hosts", async () => {
    const t = await createTestApp({}, (app) => app.set("trust proxy", true));
    const response = await t
      .post("/Users", userBody("ann"))
      .set("X-Forwarded-Proto", "https, http")
      .set("X-Forwarded-Host", "scim.example.com, internal.lb")
      .expect(201);
    const body = response.body as Resource;
    expect(body.meta.location).toBe(`https://scim.example.com/scim/Organizations/acme/v2/Users/${body.id}`);
  });

  it("ignores X-Forwarded-* headers when the app does not trust the proxy", async () => {
    const t = await createTestApp();
    const response = await t
      .post("/Users", userBody("ann"))
      .set("Host", "direct.test")
      .set("X-Forwarded-Proto", "https")
      .set("X-Forwarded-Host", "scim.example.com")
      .expect(201);
    const body = response.body as Resource;
    expect(body.meta.location).toBe(`http://direct.test/scim/Organizations/acme/v2/Users/${body.id}`);
    expect(response.headers["location"]).toBe(body.meta.location);
  });

  it("builds every URL from the app's PUBLIC_URL_SETTING, whatever Host and a trusted X-Forwarded-Host say", async () => {
    const t = await createTestApp({}, (app) => {
      app.set("trust proxy", true);
      app.set(PUBLIC_URL_SETTING, "https://scim.example.com/prefix/");
    });
    const response = await t
      .post("/Users", userBody("ann"))
      .set("Host", "attacker.example")
      .set("X-Forwarded-Proto", "http")
      .set("X-Forwarded-Host", "attacker.example")
      .expect(201);
    const body = response.body as Resource;
    expect(body.meta.location).toBe(`https://scim.example.com/prefix/scim/Organizations/acme/v2/Users/${body.id}`);
    expect(response.headers["location"]).toBe(body.meta.location);
    const read = await t.get(`/Users/${body.id}`).set("Host", "other.example").expect(200);
    expect((read.body as Resource).meta.location).toBe(body.meta.location);
  });

  it("lets a configured baseUrl win over forwarded headers", async () => {
    const t = await createTestApp({ baseUrl: "https://fixed.example.com/scim" }, (app) => app.set("trust proxy", true));
    const body = (await t.post("/Users", userBody("ann")).set("X-Forwarded-Host", "spoofed.example.com").expect(201)).body as Resource;
    expect(body.meta.location).toBe(`https://fixed.example.com/scim/Users/${body.id}`);
  });
});
