/**
 * `SCIMKIT_WORKERS` (issue 19): one host, several worker processes behind its one port on
 * PostgreSQL — every worker answers, a worker that dies is replaced, and SIGTERM drains them all
 * and exits 0. Real processes.
 */
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { killHosts, startHost } from "./host-process.fixture.js";

const TOKEN = "token-acme-workers-0123456789abcdef0123456789";
const headers = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/scim+json", Connection: "close" };

/** The pids of `parent`'s Node child processes (tsx's esbuild service is a child too, not a worker). */
function childrenOf(parent: number): number[] {
  const out = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(parent)], { encoding: "utf8" }).trim();
  return out
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, command]) => command === "node")
    .map(([pid]) => Number(pid));
}

describePostgres("the host server with several workers on PostgreSQL", (url) => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => schema.drop());
  afterEach(killHosts);

  it("serves from every worker, replaces one that dies, and stops them all on SIGTERM", { timeout: 60_000 }, async () => {
    const database = new URL(url);
    database.searchParams.set("schema", schema.name);
    const host = startHost({ SCIMKIT_ORGS: `acme:${TOKEN}`, DATABASE_URL: database.toString(), SCIMKIT_WORKERS: "3" });
    const [, base] = await host.waitFor(/^SCIM base URL for acme: (\S+)$/);
    expect(host.lines.join("\n")).toMatch(/listening on port \d+, store: PostgreSQL .*, 3 workers/);
    const workers = childrenOf(host.child.pid ?? 0);
    expect(workers).toHaveLength(3);

    // Each request on a new connection: the primary deals connections to the workers in turn.
    const create = async (index: number): Promise<number> => {
      const response = await fetch(`${base}/Users`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
          userName: `w${index}@example.com`,
          name: { givenName: "W", familyName: `${index}` },
          emails: [{ value: `w${index}@example.com`, type: "work" }],
        }),
      });
      return response.status;
    };
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, index) => create(index)));
    expect(statuses, host.lines.join("\n")).toEqual(statuses.map(() => 201));
    const listed = await fetch(`${base}/Users?count=0`, { headers });
    expect(((await listed.json()) as { totalResults: number }).totalResults).toBe(12);

    process.kill(workers[0] ?? 0, "SIGKILL");
    await host.waitFor(/^worker \d+ exited \(SIGKILL\); starting another$/);
    await host.waitFor(/^replacement worker listening$/);
    expect(childrenOf(host.child.pid ?? 0)).toHaveLength(3);
    expect(await create(100)).toBe(201);

    const exited = once(host.child, "exit");
    host.child.kill("SIGTERM");
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    const output = host.lines.join("\n");
    expect(output).toMatch(/SIGTERM received: stopping 3 worker\(s\)/);
    expect(output.match(/\[worker \d+\] Store closed/g), output).toHaveLength(3);
    expect(output).toMatch(/All workers stopped; store closed/);
  });
});
