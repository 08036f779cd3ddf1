/**
 * The host server on PostgreSQL with one variable (`DATABASE_URL`), and two host processes
 * sharing that database — the way a deployment grows past one machine — with the analytics
 * interface and its demo data over the same database.
 */
import { once } from "node:events";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { killHosts, startHost, type Host } from "./host-process.fixture.js";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const auth = { Authorization: "Bearer token-acme-0123456789abcdef0123456789", "Content-Type": "application/scim+json" };

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
    const host = startHost({ SCIMKIT_ORGS: "acme:token-acme-0123456789abcdef0123456789", DATABASE_URL: database.toString() });
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
      body: JSON.stringify({
        schemas: [USER_SCHEMA],
        userName: "USER0@example.com",
        name: { givenName: "U", familyName: "0" },
        emails: [{ value: "x@example.com", type: "work" }],
      }),
    });
    expect(duplicate.status).toBe(409);

    const group = await fetch(`${a.base}/Groups`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ schemas: [GROUP_SCHEMA], displayName: "Everyone" }),
    });
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

  it("two hosts under concurrent membership PATCHes and creates of one userName: no member lost or resurrected, exactly one winner per name", async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const via = (index: number): string => (index % 2 === 0 ? a : b).base;
    // An IdP retries a 429 after Retry-After; each host limits its organizations on its own.
    const send = async (url: string, init: RequestInit): Promise<Response> => {
      for (;;) {
        const response = await fetch(url, { ...init, headers: auth });
        if (response.status !== 429) return response;
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get("retry-after") ?? "1") * 1000));
      }
    };
    const createUser = async (index: number, userName: string): Promise<Response> =>
      send(`${via(index)}/Users`, {
        method: "POST",
        body: JSON.stringify({
          schemas: [USER_SCHEMA],
          userName,
          name: { givenName: "R", familyName: `${index}` },
          emails: [{ value: `r${index}@example.com`, type: "work" }],
        }),
      });
    const ids = async (responses: readonly Response[]): Promise<string[]> =>
      Promise.all(responses.map(async (response) => ((await response.json()) as { id: string }).id));

    // 30 members to remove and 60 users to add, all at once, half through each host.
    const leaving = await ids(
      await Promise.all(Array.from({ length: 30 }, (_, index) => createUser(index, `leaving${index}@example.com`))),
    );
    const joining = await ids(
      await Promise.all(Array.from({ length: 60 }, (_, index) => createUser(index, `joining${index}@example.com`))),
    );
    const group = await send(`${a.base}/Groups`, {
      method: "POST",
      body: JSON.stringify({ schemas: [GROUP_SCHEMA], displayName: "Churn", members: leaving.map((value) => ({ value })) }),
    });
    expect(group.status).toBe(201);
    const groupId = ((await group.json()) as { id: string }).id;
    const patch = (index: number, operation: unknown): Promise<Response> =>
      send(`${via(index)}/Groups/${groupId}`, {
        method: "PATCH",
        body: JSON.stringify({ schemas: [PATCH_SCHEMA], Operations: [operation] }),
      });

    // Meanwhile 10 userNames, each created 8 times at once through both hosts, in varying case.
    const names = Array.from({ length: 10 }, (_, index) => `contested${index}@example.com`);
    const [removed, added, contested] = await Promise.all([
      Promise.all(leaving.map((id, index) => patch(index, { op: "remove", path: `members[value eq "${id}"]` }))),
      Promise.all(joining.map((id, index) => patch(index + 1, { op: "add", path: "members", value: [{ value: id }] }))),
      Promise.all(
        names.flatMap((name, nameIndex) =>
          Array.from({ length: 8 }, (_, attempt) => createUser(nameIndex * 8 + attempt, attempt % 2 === 0 ? name : name.toUpperCase())),
        ),
      ),
    ]);
    expect(removed.map((response) => response.status)).toEqual(leaving.map(() => 204));
    expect(added.map((response) => response.status)).toEqual(joining.map(() => 204));

    const members = ((await (await send(`${b.base}/Groups/${groupId}`, {})).json()) as { members?: { value: string }[] }).members ?? [];
    expect(new Set(members.map((member) => member.value))).toEqual(new Set(joining));
    expect(members).toHaveLength(joining.length);

    const statuses = contested.map((response) => response.status);
    for (const [nameIndex, name] of names.entries()) {
      const mine = statuses.slice(nameIndex * 8, nameIndex * 8 + 8);
      expect(
        mine.filter((status) => status === 201),
        name,
      ).toHaveLength(1);
      expect(
        mine.filter((status) => status === 409),
        name,
      ).toHaveLength(7);
      const listed = await send(`${a.base}/Users?filter=${encodeURIComponent(`userName eq "${name}"`)}`, {});
      expect(((await listed.json()) as { totalResults: number }).totalResults, name).toBe(1);
    }
    const conflicts = contested.filter((response) => response.status === 409);
    for (const conflict of conflicts.slice(0, 3)) expect(await conflict.json()).toMatchObject({ status: "409", scimType: "uniqueness" });
    console.log(
      `[faults] two hosts, one PostgreSQL: ${removed.length} removes and ${added.length} adds on one group at once → exactly the ${members.length} added; ` +
        `${contested.length} creates of ${names.length} userNames at once → ${statuses.filter((status) => status === 201).length} × 201, ${conflicts.length} × 409 uniqueness`,
    );

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
    expect(await summary.json()).toMatchObject({
      enrolled: 50,
      notStarted: 8,
      inProgress: 12,
      completed: 30,
      overdue: 20,
      completionRate: 0.6,
    });
    const funnel = await fetch(summaryUrl as string, { headers });
    expect(await funnel.json()).toMatchObject({ sent: 50, delivered: 48, opened: 31, clicked: 12, submittedData: 5, reported: 14 });

    for (const host of [first, second]) {
      host.child.kill("SIGTERM");
      expect((await once(host.child, "exit"))[0]).toBe(0);
    }
  }, 60_000);
});
