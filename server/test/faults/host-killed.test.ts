/**
 * The host process killed outright (SIGKILL, as the kernel's OOM killer or a lost machine would)
 * during a write load, twice, on SQLite and on PostgreSQL (issue 7, Faults): after each restart
 * every acknowledged write — a 2xx answer — is there, an unacknowledged one is whole or absent,
 * and no group lists a user that does not exist. Real processes, as `npm start` runs them.
 */
import Database from "better-sqlite3";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killHosts, startHost, type Host } from "../../src/host/host-process.fixture.js";
import { createTestSchema, describePostgres } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { freePort } from "../../../test/faults/throwaway-postgres.js";
import { createGroups, startWriteLoad, verifyAcknowledged, type LoadTarget } from "../../../test/faults/write-load.js";

const TOKEN = "token-acme-killed-0123456789abcdef0123456789";
const scratch = mkdtempSync(join(tmpdir(), "scimkit-killed-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(killHosts);

const until = async (condition: () => boolean, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** Runs the load across two SIGKILLs and restarts of a host on `databaseUrl`; answers the figures. */
async function killTwiceUnderLoad(databaseUrl: string, label: string): Promise<string> {
  // One port throughout, so the load's clients reconnect to the same address, as an IdP would.
  const port = await freePort();
  const start = async (): Promise<Host> => {
    const host = startHost({ SCIMKIT_ORGS: `acme:${TOKEN}`, DATABASE_URL: databaseUrl, PORT: String(port) });
    await host.waitFor(/^SCIM base URL for acme: /);
    return host;
  };
  const target: LoadTarget = { base: () => `http://localhost:${port}/scim/Organizations/acme/v2`, token: TOKEN };
  let host = await start();
  const groups = await createGroups(target, label, 3);
  const load = startWriteLoad(target, { prefix: label, groups, workers: 6 });
  let killedInFlight = 0;
  for (let round = 1; round <= 2; round += 1) {
    await until(() => load.record.created.size >= 50 * round, 20_000);
    const killedAt = performance.now() - load.startedAt;
    host.child.kill("SIGKILL");
    await once(host.child, "exit");
    // Requests that were on the wire when it died come back as failed fetches that began before.
    await new Promise((resolve) => setTimeout(resolve, 100));
    killedInFlight += load.record.answers.filter(
      (answer) => answer.status === 0 && answer.at < killedAt && answer.at + answer.ms > killedAt,
    ).length;
    host = await start();
  }
  const createdBefore = load.record.created.size;
  await until(() => load.record.created.size >= createdBefore + 20, 20_000);
  const record = await load.stop();

  const statuses = new Map<number, number>();
  for (const answer of record.answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  // 0: no answer (the host was dead); 429: the host's rate limit. Never a 5xx.
  expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
  const verified = await verifyAcknowledged(target, record, groups);
  host.child.kill("SIGTERM");
  expect((await once(host.child, "exit"))[0]).toBe(0);
  return (
    `${label}: 2 × SIGKILL under 6 writers, ${record.answers.length} answers ${JSON.stringify(Object.fromEntries(statuses))}, ${killedInFlight} requests in flight at the kills; ` +
    `${verified.usersPresent} acknowledged users present, ${verified.usersDeleted} deletes held, ${verified.members} members all existing, ` +
    `${verified.unacknowledgedButWritten} of ${record.unacknowledgedCreates.size} unacknowledged creates written (whole)`
  );
}

describe("the host killed with SIGKILL during a write load", () => {
  it("on SQLite: every acknowledged write survives, no group lists a missing user, the file passes integrity_check", async () => {
    const file = join(scratch, "killed.db");
    const figures = await killTwiceUnderLoad(`sqlite:${file}`, "sqlite");
    const database = new Database(file, { readonly: true });
    try {
      expect(database.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(database.pragma("foreign_key_check")).toEqual([]);
    } finally {
      database.close();
    }
    console.log(`[faults] ${figures}; integrity_check ok, foreign_key_check empty`);
  }, 90_000);
});

describePostgres("the host killed with SIGKILL during a write load on PostgreSQL", (url) => {
  it("every acknowledged write survives and no group lists a missing user", async () => {
    const schema = await createTestSchema(url);
    try {
      const database = new URL(url);
      database.searchParams.set("schema", schema.name);
      const figures = await killTwiceUnderLoad(database.toString(), "postgres");
      console.log(`[faults] ${figures}`);
    } finally {
      killHosts();
      await schema.drop();
    }
  }, 90_000);
});
