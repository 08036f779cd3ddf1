/**
 * RFC 9967 event receivers through the operator API (issue 20): register, list, get and remove an
 * organization's receivers through the router's `securityEvents`, with their delivery state read
 * back after real pushes to a real HTTP receiver; every bad registration is a 400 naming its
 * field; an admin sees only its organizations' receivers and a viewer only reads; the
 * `Authorization` value is never rendered nor audited; without a delivery every operation is 404
 * saying so. On the project's store (memory, or SQLite in `express5-sqlite`) and, when
 * `SCIMKIT_TEST_POSTGRES_URL` is set, on PostgreSQL.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditTrail } from "../../../src/audit/memory-audit-trail.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import {
  POPULATED,
  UNKNOWN,
  createAnalyticsTestApp,
  expectInvalidFields,
  expectProblem,
  type AnalyticsTestApp,
  type Json,
  type TestAppOptions,
} from "./analytics-harness.js";
import { adminWithKey, createOrganization, provision } from "./analytics-world.js";

const SECRET = "Bearer receiver-secret-7f3a9c";
const CREATE_FULL = "urn:ietf:params:scim:event:prov:create:full";
const CREATE_NOTICE = "urn:ietf:params:scim:event:prov:create:notice";
const DELETE = "urn:ietf:params:scim:event:prov:delete";

/** A receiver that answers every push with `status` and `body`, and counts them. */
async function receiverServer(status: number, body = ""): Promise<{ url: string; pushes: string[]; close(): Promise<void> }> {
  const pushes: string[] = [];
  const server: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on("end", () => {
      pushes.push(text);
      response.writeHead(status, body === "" ? {} : { "Content-Type": "application/json" });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    pushes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function add(t: AnalyticsTestApp, orgId: string, body: Json, key?: string): Promise<Json & { id: string }> {
  const response = await t.post(`/organizations/${orgId}/event-receivers`, body, key);
  expect(response.status, response.text).toBe(201);
  const receiver = response.body as Json & { id: string };
  expect(response.headers["location"]).toMatch(new RegExp(`/analytics/v1/organizations/${orgId}/event-receivers/${receiver.id}$`));
  return receiver;
}

async function list(t: AnalyticsTestApp, orgId: string, key?: string): Promise<Json[]> {
  const response = await t.get(`/organizations/${orgId}/event-receivers`, key);
  expect(response.status, response.text).toBe(200);
  return (response.body as { data: Json[] }).data;
}

/** The lifecycle tests, on the stores `options` select. */
function lifecycle(options: () => TestAppOptions): void {
  let apps: AnalyticsTestApp[] = [];
  async function app(extra: TestAppOptions = {}): Promise<AnalyticsTestApp> {
    const t = await createAnalyticsTestApp({ ...options(), securityEvents: true, ...extra });
    apps.push(t);
    return t;
  }
  afterAll(async () => {
    await Promise.all(apps.map((t) => t.close()));
    apps = [];
  });

  it("registers, lists, gets and removes a receiver, never showing its Authorization value", async () => {
    const trail = memoryAuditTrail();
    const t = await app({ router: { onAudit: trail } });
    const org = await createOrganization(t, "Acme");
    expect(await list(t, org.id)).toEqual([]);

    const added = await add(t, org.id, {
      url: "https://siem.example.com/events",
      events: [CREATE_FULL, DELETE],
      form: "full",
      audience: "https://siem.example.com/",
      authorization: SECRET,
      label: "  SIEM  ",
    });
    expect(added).toMatchObject({
      organizationId: org.id,
      url: "https://siem.example.com/events",
      delivery: "push",
      events: [CREATE_FULL, DELETE],
      form: "full",
      audience: "https://siem.example.com/",
      hasAuthorization: true,
      label: "SIEM",
      attempts: 0,
      delivered: 0,
      rejected: 0,
      dropped: 0,
    });
    expect(added).not.toHaveProperty("authorization");
    expect(added).not.toHaveProperty("pollUrl");
    // Defaults: notice, every URI, audience = url, no Authorization.
    const plain = await add(t, org.id, { url: "https://other.example.com/set" });
    expect(plain).toMatchObject({ form: "notice", events: [], audience: "https://other.example.com/set", hasAuthorization: false });

    expect((await list(t, org.id)).map((receiver) => receiver["id"])).toEqual([added.id, plain.id]);
    const got = await t.get(`/organizations/${org.id}/event-receivers/${added.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(added);
    for (const text of [got.text, JSON.stringify(await list(t, org.id))]) expect(text).not.toContain("receiver-secret");

    expect((await t.delete(`/organizations/${org.id}/event-receivers/${added.id}`)).status).toBe(204);
    expectProblem(await t.get(`/organizations/${org.id}/event-receivers/${added.id}`), 404, "not-found");
    expectProblem(await t.delete(`/organizations/${org.id}/event-receivers/${added.id}`), 404, "not-found");
    expect((await list(t, org.id)).map((receiver) => receiver["id"])).toEqual([plain.id]);

    // The trail names the receiver by id, never its secret.
    const entries = [...(await trail.list(org.id))]
      .reverse()
      .map((entry) => [entry.operation, entry.resourceType, entry.resourceId, entry.outcome, entry.status] as const);
    expect(entries).toEqual([
      ["analytics.createOrganization", "Organization", org.id, "success", 201],
      ["analytics.addOrganizationEventReceiver", "EventReceiver", added.id, "success", 201],
      ["analytics.addOrganizationEventReceiver", "EventReceiver", plain.id, "success", 201],
      ["analytics.removeOrganizationEventReceiver", "EventReceiver", added.id, "success", 204],
      ["analytics.removeOrganizationEventReceiver", "EventReceiver", added.id, "failure", 404],
    ]);
    expect(JSON.stringify(await trail.list(org.id))).not.toContain("receiver-secret");
    // A registration's entry says where the organization's events go.
    const targets = [...(await trail.list(org.id))].reverse().map((entry) => entry.target);
    expect(targets.slice(1, 3)).toEqual(["https://siem.example.com/events", "https://other.example.com/set"]);
    expect(t.errors).toEqual([]);
  });

  it("shows a poll receiver's poll URL: the default address, or the host's", async () => {
    const t = await app();
    const org = await createOrganization(t, "Acme");
    const polled = await add(t, org.id, { url: "https://behind.example.com/", delivery: "poll", authorization: SECRET });
    expect(polled["delivery"]).toBe("poll");
    expect(polled["hasAuthorization"]).toBe(true);
    expect(String(polled["pollUrl"])).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:\\d+/scim/Organizations/${org.id}/events/poll/${polled.id}$`),
    );

    const custom = await app({
      router: { securityEventPollUrl: (orgId, receiverId) => `https://scim.example.com/o/${orgId}/poll/${receiverId}` },
    });
    const other = await createOrganization(custom, "Globex");
    const second = await add(custom, other.id, { url: "https://behind.example.com/", delivery: "poll", authorization: SECRET });
    expect(second["pollUrl"]).toBe(`https://scim.example.com/o/${other.id}/poll/${second.id}`);
  });

  it("shows where delivery stands: failures with their cause and next attempt, then what was delivered", async () => {
    const t = await app();
    const org = await createOrganization(t, "Acme");
    await provision(t, org, "alice");
    const down = await receiverServer(503, JSON.stringify({ err: "temporarily_unavailable", description: "maintenance until 10:00" }));
    const up = await receiverServer(202);
    try {
      const failing = await add(t, org.id, { url: down.url, start: "beginning" });
      const accepting = await add(t, org.id, { url: up.url, start: "beginning" });
      // A receiver that starts now has nothing to get yet.
      const later = await add(t, org.id, { url: up.url });
      expect(later["position"]).toBeGreaterThan(0);
      expect(failing["position"]).toBe(0);

      await t.securityEvents?.runOnce();
      expect(down.pushes).toHaveLength(1);
      expect(up.pushes).toHaveLength(1);
      const failed = (await t.get(`/organizations/${org.id}/event-receivers/${failing.id}`)).body as Json;
      expect(failed).toMatchObject({ attempts: 1, delivered: 0, position: 0 });
      expect(Date.parse(String(failed["nextAttemptAt"]))).toBeGreaterThan(Date.now() - 60_000);
      // In the service's words: the receiver's body (here a code RFC 8935 does not register) is not kept.
      expect(failed["lastError"]).toMatchObject({ status: 503, error: "http", description: "the receiver answered HTTP 503" });
      expect(JSON.stringify(failed)).not.toContain("maintenance");
      const delivered = (await t.get(`/organizations/${org.id}/event-receivers/${accepting.id}`)).body as Json;
      expect(delivered).toMatchObject({ attempts: 0, delivered: 1, rejected: 0, position: later["position"] });
      expect(delivered).not.toHaveProperty("lastError");
      expect(typeof delivered["lastDeliveredAt"]).toBe("string");
    } finally {
      await Promise.all([down.close(), up.close()]);
    }
    expect(t.errors).toEqual([]);
  });

  it("refuses every bad registration with a 400 naming the field, and registers nothing", async () => {
    const t = await app();
    const org = await createOrganization(t, "Acme");
    const path = `/organizations/${org.id}/event-receivers`;
    const cases: readonly [unknown, readonly string[]][] = [
      [{}, ["/url"]],
      [{ url: "not a url" }, ["/url"]],
      [{ url: 42 }, ["/url"]],
      [{ url: "ftp://files.example.com/events" }, ["/url"]],
      [{ url: "https://user:password@siem.example.com/events" }, ["/url"]],
      [{ url: "https://siem.example.com/", delivery: "pigeon" }, ["/delivery"]],
      [{ url: "https://siem.example.com/", delivery: "poll" }, ["/authorization"]],
      [{ url: "https://siem.example.com/", authorization: "" }, ["/authorization"]],
      [{ url: "https://siem.example.com/", authorization: "Bearer a\r\nX-Injected: 1" }, ["/authorization"]],
      [{ url: "https://siem.example.com/", authorization: " Bearer padded" }, ["/authorization"]],
      [{ url: "https://siem.example.com/", events: ["urn:example:not-an-event"] }, ["/events/0"]],
      [{ url: "https://siem.example.com/", events: "all" }, ["/events"]],
      [{ url: "https://siem.example.com/", events: [DELETE, DELETE] }, ["/events"]],
      [{ url: "https://siem.example.com/", events: [DELETE, CREATE_FULL] }, ["/events/1"]],
      [{ url: "https://siem.example.com/", form: "full", events: [CREATE_NOTICE] }, ["/events/0"]],
      [{ url: "https://siem.example.com/", form: "summary" }, ["/form"]],
      [{ url: "https://siem.example.com/", audience: "" }, ["/audience"]],
      [{ url: "https://siem.example.com/", label: "   " }, ["/label"]],
      [{ url: "https://siem.example.com/", start: "yesterday" }, ["/start"]],
      [{ url: "https://siem.example.com/", secret: "x" }, ["/secret"]],
      [{ form: "summary", delivery: "pigeon" }, ["/url", "/form", "/delivery"]],
    ];
    for (const [body, fields] of cases) {
      const response = await t.post(path, body);
      expectInvalidFields(response, fields);
      expect(response.text, JSON.stringify(body)).not.toContain("receiver-secret");
    }
    expect(await list(t, org.id)).toEqual([]);
    expect(t.errors).toEqual([]);
  });

  it("refuses a receiver past the organization's quota (20) with a 409 naming the bound, and registers nothing", async () => {
    const t = await app();
    const org = await createOrganization(t, "Acme");
    const other = await createOrganization(t, "Globex");
    for (let index = 0; index < 20; index += 1) await add(t, org.id, { url: `https://siem.example.com/events/${index}` });
    const refused = expectProblem(
      await t.post(`/organizations/${org.id}/event-receivers`, { url: "https://siem.example.com/21" }),
      409,
      "conflict",
    );
    expect(refused.detail).toMatch(/20 event receivers, the most this service allows/);
    expect(await list(t, org.id)).toHaveLength(20);
    // Another organization's quota is its own.
    await add(t, other.id, { url: "https://siem.example.com/globex" });
    expect(t.errors).toEqual([]);
  });

  it("refuses a push receiver on a loopback, private, link-local, metadata, CGNAT or unique-local host with a 400 naming the rule", async () => {
    const t = await app({ receiverAllowHosts: [] });
    const org = await createOrganization(t, "Acme");
    const admin = await adminWithKey(t, "admin@example.com", "admin", [org.id]);
    const cases: readonly [string, string][] = [
      ["http://127.0.0.1:9/events", "127.0.0.1 is a loopback address"],
      ["http://localhost:9/events", "localhost resolves to a loopback address"],
      ["http://[::1]:9/events", "::1 is a loopback address"],
      ["http://2130706433:9/events", "127.0.0.1 is a loopback address"],
      ["http://0x7f.1:9/events", "127.0.0.1 is a loopback address"],
      ["http://127.1:9/events", "127.0.0.1 is a loopback address"],
      ["http://0177.0.0.1:9/events", "127.0.0.1 is a loopback address"],
      ["http://[::ffff:127.0.0.1]:9/events", "::ffff:7f00:1 is a loopback address"],
      ["http://10.2.3.4/events", "10.2.3.4 is a private address"],
      ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata service address"],
      ["http://169.254.0.9/", "169.254.0.9 is a link-local address"],
      ["http://100.100.1.1/", "100.100.1.1 is a shared (CGNAT) address"],
      ["http://[fd01::1]/", "fd01::1 is a unique-local address"],
    ];
    for (const [url, reason] of cases) {
      const response = await t.post(`/organizations/${org.id}/event-receivers`, { url }, admin.key);
      expectInvalidFields(response, ["/url"]);
      expect(expectProblem(response, 400, "invalid-request").detail, url).toBe(
        `/url: The receiver URL's host ${reason}; ask the operator to allow it with receiverAddressPolicy.allowHosts.`,
      );
    }
    expect(await list(t, org.id)).toEqual([]);
    expect(t.errors).toEqual([]);
  });

  it("lets an admin manage only its organizations' receivers (404 as for unknown ones), and a viewer only read", async () => {
    const t = await app();
    const orgA = await createOrganization(t, "Acme");
    const orgB = await createOrganization(t, "Globex");
    const adminA = await adminWithKey(t, "admin-a@example.com", "admin", [orgA.id]);
    const viewerA = await adminWithKey(t, "viewer-a@example.com", "viewer", [orgA.id]);
    const adminB = await adminWithKey(t, "admin-b@example.com", "admin", [orgB.id]);

    const mine = await add(t, orgA.id, { url: "https://a.example.com/events" }, adminA.key);
    expect((await list(t, orgA.id, adminA.key)).map((receiver) => receiver["id"])).toEqual([mine.id]);
    expect((await list(t, orgA.id, viewerA.key)).map((receiver) => receiver["id"])).toEqual([mine.id]);
    expect((await t.get(`/organizations/${orgA.id}/event-receivers/${mine.id}`, viewerA.key)).status).toBe(200);
    expectProblem(
      await t.post(`/organizations/${orgA.id}/event-receivers`, { url: "https://v.example.com/" }, viewerA.key),
      403,
      "forbidden",
    );
    expectProblem(await t.delete(`/organizations/${orgA.id}/event-receivers/${mine.id}`, viewerA.key), 403, "forbidden");

    // B's admin: A's organization and its receiver are as unknown ones.
    const requests = [
      ["GET", `/organizations/{org}/event-receivers`, undefined],
      ["POST", `/organizations/{org}/event-receivers`, { url: "https://b.example.com/events" }],
      ["GET", `/organizations/{org}/event-receivers/${mine.id}`, undefined],
      ["DELETE", `/organizations/{org}/event-receivers/${mine.id}`, undefined],
    ] as const;
    for (const [method, template, body] of requests) {
      const send = (org: string) =>
        t.send(method, template.replace("{org}", org), { key: adminB.key, ...(body === undefined ? {} : { body }) });
      const foreign = expectProblem(await send(orgA.id), 404, "not-found");
      const unknown = expectProblem(await send(UNKNOWN), 404, "not-found");
      expect(foreign, `${method} ${template}`).toEqual(unknown);
    }
    expect((await list(t, orgA.id)).map((receiver) => receiver["id"])).toEqual([mine.id]);
    expect(await list(t, orgB.id, adminB.key)).toEqual([]);
    // A receiver id of another organization is unknown in this one, even to the operator.
    expectProblem(await t.get(`/organizations/${orgB.id}/event-receivers/${mine.id}`), 404, "not-found");
    expectProblem(await t.delete(`/organizations/${orgB.id}/event-receivers/${mine.id}`), 404, "not-found");
    expect((await t.delete(`/organizations/${orgA.id}/event-receivers/${mine.id}`, adminA.key)).status).toBe(204);
  });
}

describe("event receivers through the operator API", POPULATED, () => {
  lifecycle(() => ({}));

  it("answers 404 saying event delivery is not configured when the router has no delivery, for any organization", async () => {
    const t = await createAnalyticsTestApp();
    try {
      const org = await createOrganization(t, "Acme");
      for (const orgId of [org.id, UNKNOWN]) {
        const responses = [
          await t.get(`/organizations/${orgId}/event-receivers`),
          await t.post(`/organizations/${orgId}/event-receivers`, { url: "https://siem.example.com/" }),
          await t.get(`/organizations/${orgId}/event-receivers/${UNKNOWN}`),
          await t.delete(`/organizations/${orgId}/event-receivers/${UNKNOWN}`),
        ];
        for (const response of responses) expect(expectProblem(response, 404, "not-found").detail).toMatch(/not configured/);
      }
    } finally {
      await t.close();
    }
  });
});

describePostgres("event receivers through the operator API on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  describe("lifecycle", POPULATED, () => {
    lifecycle(() => {
      if (!schema) throw new Error("the test schema was not created (see beforeAll)");
      return { postgres: { pool: schema.pool() } };
    });
  });
});
