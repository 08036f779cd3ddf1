/**
 * Issue 19 item 3: three host processes on one PostgreSQL database behind a round-robin proxy, as
 * a load balancer would put them — an identity provider's workload loses nothing, every cursor
 * walk crosses hosts, and the rate limit holds for the three together.
 */
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { uniqueKeys, userAttributes } from "../analytics/scim-attributes.fixture.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { sqlStore } from "scimkit/sql";
import { killHosts, startHost, type Host } from "./host-process.fixture.js";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ACME = "token-acme-three-hosts-0123456789abcdef0123";
const FLOOD = "token-flood-three-hosts-0123456789abcdef012";
const OPERATOR_KEY = "operator-key-three-hosts-0123456789abcdef01";

/** A proxy dealing each request to the next of `ports` in turn; says which port served each. */
async function roundRobinProxy(
  ports: readonly number[],
): Promise<{ readonly server: Server; readonly url: string; readonly served: number[] }> {
  let next = 0;
  const served: number[] = [];
  const server = createServer((incoming, outgoing) => {
    const port = ports[next++ % ports.length] ?? 0;
    served.push(port);
    const forwarded = httpRequest(
      { host: "127.0.0.1", port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, connection: "close" } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served };
}

describePostgres("three hosts on one PostgreSQL behind a round-robin proxy", (url) => {
  let schema: TestSchema;
  let hosts: Host[] = [];
  let proxy: Awaited<ReturnType<typeof roundRobinProxy>>;
  let ports: number[] = [];
  beforeAll(async () => {
    schema = await createTestSchema(url);
    const database = new URL(url);
    database.searchParams.set("schema", schema.name);
    const env = {
      SCIMKIT_ORGS: `acme:${ACME},flood:${FLOOD}`,
      SCIMKIT_OPERATOR_KEY: OPERATOR_KEY,
      DATABASE_URL: database.toString(),
      SCIMKIT_WORKERS: "1",
      SCIMKIT_DEMO_DATA: "0",
      // Low, so three hosts' separate buckets (three times the allowance) would show at any speed.
      SCIMKIT_RATE_LIMIT: "20",
      SCIMKIT_RATE_BURST: "20",
      // A report whose host went silent is taken over after 2 s rather than 30.
      SCIMKIT_REPORT_LEASE_SECONDS: "2",
    };
    // The first migrates; the other two find the tables there (as `scimkit migrate` first would).
    const first = startHost(env);
    await first.waitFor(/listening on port/);
    hosts = [first, startHost(env), startHost(env)];
    ports = await Promise.all(hosts.map(async (host) => Number((await host.waitFor(/listening on port (\d+)/))[1])));
    proxy = await roundRobinProxy(ports);
  }, 120_000);
  afterAll(async () => {
    proxy?.server.close();
    killHosts();
    await schema?.drop();
  });
  afterEach(() => {
    proxy.served.length = 0;
  });

  /** A SCIM client of one organization; `patient` retries a 429 after its Retry-After, as Entra and Okta do. */
  const scim =
    (token: string, patient: boolean) =>
    async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> | undefined }> => {
      const response = await fetch(`${proxy.url}/scim/Organizations/${token === ACME ? "acme" : "flood"}/v2${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (patient && response.status === 429) {
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get("retry-after") ?? "1") * 1000));
        return scim(token, patient)(method, path, body);
      }
      return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as Record<string, unknown> | undefined };
    };
  const acme = scim(ACME, true);

  it("loses nothing of an identity provider's concurrent creates and membership changes, and walks cursors across hosts", {
    timeout: 120_000,
  }, async () => {
    const created = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        acme("POST", "/Users", {
          schemas: [USER_SCHEMA],
          userName: `learner${index}@example.com`,
          name: { givenName: "L", familyName: `${index}` },
          emails: [{ value: `learner${index}@example.com`, type: "work" }],
        }),
      ),
    );
    expect(created.map((reply) => reply.status)).toEqual(created.map(() => 201));
    const ids = created.map((reply) => String(reply.body?.["id"]));
    // Every host took its share of the creates.
    expect(new Set(proxy.served).size).toBe(3);

    const group = await acme("POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Everyone" });
    expect(group.status).toBe(201);
    const groupId = String(group.body?.["id"]);
    const patch = (op: "add" | "remove", members: readonly string[]) =>
      acme("PATCH", `/Groups/${groupId}`, {
        schemas: [PATCH_SCHEMA],
        Operations:
          op === "add"
            ? [{ op, path: "members", value: members.map((value) => ({ value })) }]
            : members.map((value) => ({ op, path: `members[value eq "${value}"]` })),
      });
    // The first 40 in twenty concurrent adds of two; then, at once, the first 20 removed in ten
    // PATCHes and the last 20 added in ten more, through all three hosts.
    const pairs = (from: number, to: number) =>
      Array.from({ length: (to - from) / 2 }, (_, k) => ids.slice(from + 2 * k, from + 2 * k + 2));
    const adds = await Promise.all(pairs(0, 40).map((members) => patch("add", members)));
    expect(adds.every((reply) => reply.status === 200 || reply.status === 204)).toBe(true);
    const mixed = await Promise.all([
      ...pairs(0, 20).map((members) => patch("remove", members)),
      ...pairs(40, 60).map((members) => patch("add", members)),
    ]);
    expect(mixed.every((reply) => reply.status === 200 || reply.status === 204)).toBe(true);
    const members = await acme("GET", `/Groups/${groupId}?attributes=members`);
    const memberIds = ((members.body?.["members"] as { value: string }[] | undefined) ?? []).map((member) => member.value).sort();
    expect(memberIds).toEqual(ids.slice(20).sort());

    // A cursor walk of 7 a page: each page from the next host, each host opening the others' cursors.
    proxy.served.length = 0;
    const walked: string[] = [];
    let cursor = "";
    for (let page = 0; page < 20; page++) {
      const reply = await acme("GET", `/Users?count=7&cursor=${encodeURIComponent(cursor)}`);
      expect(reply.status).toBe(200);
      walked.push(...((reply.body?.["Resources"] as { id: string }[]) ?? []).map((user) => user.id));
      const next = reply.body?.["nextCursor"];
      if (typeof next !== "string") break;
      cursor = next;
    }
    expect(walked.sort()).toEqual([...ids].sort());
    expect(new Set(proxy.served).size).toBe(3);
  });

  it("holds one rate limit for the three hosts together", { timeout: 120_000 }, async () => {
    const flood = scim(FLOOD, false);
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: 900 }, () => flood("GET", "/Users?count=1")));
    const seconds = (performance.now() - started) / 1000;
    const allowed = replies.filter((reply) => reply.status === 200).length;
    const refused = replies.filter((reply) => reply.status === 429).length;
    expect(allowed + refused).toBe(900);
    // 20 a second, bursts of 20 — once for the three, where a bucket per host would let through
    // three times as many however long the flood took. Each host may hold an unspent lease of one
    // that the others cannot use: the limit is met from below by at most that, never exceeded.
    expect(allowed).toBeLessThanOrEqual(20 + Math.ceil(20 * seconds) + 1);
    expect(allowed).toBeGreaterThanOrEqual(20 - 3);
    expect(refused).toBeGreaterThan(0);
  });

  // Last: it kills the first host, which the proxy then answers 502 for.
  it("completes a report whose host died mid-way on another host, each learner once", { timeout: 180_000 }, async () => {
    // Learners enough for three pages of 1,000, written straight into the shared database.
    const written = 2500;
    const store = await sqlStore({ postgres: schema.pool(), migrate: false });
    try {
      for (let start = 0; start < written; start += 250) {
        await Promise.all(
          Array.from({ length: 250 }, (_, k) => {
            const attributes = userAttributes(`report${start + k}@example.com`);
            return store.create({
              orgId: "acme",
              resourceType: "User",
              id: randomUUID(),
              now: new Date().toISOString(),
              attributes,
              uniqueKeys: uniqueKeys("User", attributes),
              unknownMembers: "ignore",
            });
          }),
        );
      }
    } finally {
      await store.close();
    }
    const analytics = (port: number, path: string) =>
      fetch(`http://127.0.0.1:${port}/analytics/v1${path}`, { headers: { Authorization: `Bearer ${OPERATOR_KEY}` } });
    const [first = 0, second = 0] = ports;
    const started = await analytics(first, "/organizations/acme/users/bulk-report");
    expect(started.status).toBe(202);
    const operationId = ((await started.json()) as { operation: { id: string } }).operation.id;

    // Frozen the moment it has claimed the job, then killed: it dies holding the claim, mid-report.
    const admin = schema.pool();
    const job = async () =>
      (await admin.query("select status, owner_id, attempts from scimkit_operations where id = $1", [operationId])).rows[0] as {
        status: string;
        owner_id: string | null;
        attempts: number;
      };
    let claimed = await job();
    // The host that took the request claims the job at once; the others would only on their next poll.
    for (let attempt = 0; claimed.status !== "running" && attempt < 4000; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      claimed = await job();
    }
    const dying = hosts[0];
    dying?.child.kill("SIGSTOP");
    const atDeath = await job();
    expect(atDeath.status).toBe("running");
    const exited = dying === undefined ? Promise.resolve() : once(dying.child, "exit");
    dying?.child.kill("SIGKILL");
    await exited;

    let status = "";
    for (let attempt = 0; status !== "succeeded" && attempt < 600; attempt++) {
      const polled = await analytics(second, `/operations/${operationId}`);
      status = ((await polled.json()) as { status?: string }).status ?? "";
      if (status === "failed") break;
      if (status !== "succeeded") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe("succeeded");
    const finished = await job();
    expect(finished.attempts).toBeGreaterThanOrEqual(2);
    expect(finished.owner_id).not.toBe(atDeath.owner_id);
    const rows = (await (await analytics(second, `/operations/${operationId}/result`)).json()) as { userId: string }[];
    // With the 60 the earlier tests of this file provisioned through the hosts.
    const learners = written + 60;
    expect(rows).toHaveLength(learners);
    expect(new Set(rows.map((row) => row.userId)).size).toBe(learners);
  });
});
