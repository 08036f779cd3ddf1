/**
 * The host server on PostgreSQL with one variable (`DATABASE_URL`), and two host processes
 * sharing that database — the way a deployment grows past one machine — with the analytics
 * interface and its demo data over the same database.
 */
import { once } from "node:events";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../../src/store/sql/postgres-test-database.fixture.js";
import { killHosts, startHost, type Host } from "./host-process.fixture.js";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const auth = { Authorization: "Bearer token-acme", "Content-Type": "application/scim+json" };

describePostgres("the host server on PostgreSQL", (url) => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => schema.drop());
  afterEach(killHosts);

  const start = async (): Promise<{ host: Host; base: string }> => {
    const database = new URL(url);
    database.searchParams.set("schema", schema.name);
    const host = startHost({ SCIMKIT_ORGS: "acme:token-acme", DATABASE_URL: database.toString() });
    const [, base] = await host.waitFor(/^SCIM base URL for acme: (\S+)$/);
    expect(host.lines[0]).toMatch(/store: PostgreSQL /);
    expect(host.lines.join("\n")).not.toMatch(/password/i);
    return { host, base: base as string };
  };

  it("two hosts share one database: what one writes the other reads, and concurrent member adds through both lose none", async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const users: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      const response = await fetch(`${(index % 2 === 0 ? a : b).base}/Users`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({
          schemas: [USER_SCHEMA],
          userName: `user${index}@example.com`,
          name: { givenName: "U", familyName: `${index}` },
          emails: [{ value: `user${index}@example.com`, type: "work" }],
        }),
      });
      expect(response.status).toBe(201);
      users.push(((await response.json()) as { id: string }).id);
    }
    const duplicate = await fetch(`${b.base}/Users`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ schemas: [USER_SCHEMA], userName: "USER0@example.com", name: { givenName: "U", familyName: "0" }, emails: [{ value: "x@example.com", type: "work" }] }),
    });
    expect(duplicate.status).toBe(409);

    const group = await fetch(`${a.base}/Groups`, { method: "POST", headers: auth, body: JSON.stringify({ schemas: [GROUP_SCHEMA], displayName: "Everyone" }) });
    const groupId = ((await group.json()) as { id: string }).id;
    const adds = users.map((id, index) =>
      fetch(`${(index % 2 === 0 ? a : b).base}/Groups/${groupId}`, {
        method: "PATCH",
        headers: auth,
        body: JSON.stringify({ schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: [{ value: id }] }] }),
      }),
    );
    expect((await Promise.all(adds)).map((response) => response.status)).toEqual(users.map(() => 204));

    const read = await fetch(`${b.base}/Groups/${groupId}`, { headers: auth });
    const members = ((await read.json()) as { members: { value: string }[] }).members.map((member) => member.value);
    expect(new Set(members)).toEqual(new Set(users));

    for (const { host } of [a, b]) {
      host.child.kill("SIGTERM");
      expect((await once(host.child, "exit"))[0]).toBe(0);
    }
  }, 60_000);

  it("seeds the demo data once and serves its figures from either of two hosts sharing the database", async () => {
    const database = new URL(url);
    database.searchParams.set("schema", schema.name);
    const operatorKey = "operator-key-for-the-postgres-host-test-0123456789";
    const env = { SCIMKIT_ORGS: "", SCIMKIT_OPERATOR_KEY: operatorKey, SCIMKIT_DEMO_DATA: "", DATABASE_URL: database.toString() };
    const first = startHost(env);
    await first.waitFor(/^Demo data for demo: 50 learners, 2 campaigns/);
    const [, summaryUrl] = await first.waitFor(/^Demo attack simulation: (\S+)$/);
    const second = startHost(env);
    const [, secondUrl] = await second.waitFor(/^Analytics interface: (\S+) /);
    expect(second.lines.some((line) => line.startsWith("Demo data"))).toBe(false);

    const headers = { Authorization: `Bearer ${operatorKey}` };
    const campaigns = (await (await fetch(`${secondUrl}/campaigns`, { headers })).json()) as { data: { id: string; name: string }[] };
    const essentials = campaigns.data.find((campaign) => campaign.name === "Security awareness essentials");
    const summary = await fetch(`${secondUrl}/campaigns/${essentials?.id}/summary`, { headers });
    expect(await summary.json()).toMatchObject({ enrolled: 50, notStarted: 8, inProgress: 12, completed: 30, overdue: 20, completionRate: 0.6 });
    const funnel = await fetch(summaryUrl as string, { headers });
    expect(await funnel.json()).toMatchObject({ sent: 50, delivered: 48, opened: 31, clicked: 12, submittedData: 5, reported: 14 });

    for (const host of [first, second]) {
      host.child.kill("SIGTERM");
      expect((await once(host.child, "exit"))[0]).toBe(0);
    }
  }, 60_000);
});
