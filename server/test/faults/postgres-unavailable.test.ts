/**
 * PostgreSQL unreachable or restarted under load (issue 7, Faults): every request fails fast with
 * a 503 SCIM error carrying `Retry-After` (RFC 9110 §15.6.4, §10.2.3; RFC 7644 §3.12), no write
 * is left half-done, and the service resumes by itself when the database is back. The router
 * runs in this process over a real `sqlStore`, with the host server's profile and no rate limit,
 * so every answer is the store's.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAnalyticsRouter } from "../../src/analytics/create-analytics-router.js";
import { sqlAnalyticsStore } from "../../src/analytics/sql/sql-analytics-store.js";
import { createTokenStore } from "../../../src/auth/hashed-token-store.js";
import { staticTokenVerifier } from "../../../src/auth/static-token-verifier.js";
import type { TokenVerifier } from "../../../src/auth/token-verifier.js";
import { createScimRouter } from "../../../src/http/create-scim-router.js";
import { specProfile } from "../../../src/scim/schema/resource-profile.js";
import type { ResourceStore } from "../../../src/store/resource-store.js";
import { postgresDialect } from "../../../src/store/sql/dialects/postgres-dialect.js";
import { openPostgres } from "../../../src/store/sql/open-postgres.js";
import { createTestSchema, describePostgres } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { sqlResourceStore } from "../../../src/store/sql/sql-resource-store.js";
import { sqlStore, type SqlStore } from "../../../src/store/sql/sql-store.js";
import { sqlTokenRepository } from "../../../src/store/sql/sql-token-repository.js";
import { freePort, startThrowawayPostgres } from "../../../test/faults/throwaway-postgres.js";
import {
  createGroups,
  startWriteLoad,
  verifyAcknowledged,
  type Answer,
  type LoadRecord,
  type LoadTarget,
} from "../../../test/faults/write-load.js";

const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
const TOKEN = "token-acme-faults";
const servers: Server[] = [];

afterAll(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function host(store: ResourceStore, auth: TokenVerifier = staticTokenVerifier({ acme: TOKEN })): Promise<LoadTarget> {
  const app = express();
  app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth, profile: specProfile }));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return { base: () => `http://127.0.0.1:${port}/scim/Organizations/acme/v2`, token: TOKEN };
}

/** Every 503 is the RFC 7644 §3.12 error with `Retry-After` and a detail an operator can act on. */
function expectUnavailable(answer: Pick<Answer, "status" | "retryAfter" | "body">): void {
  expect(answer.status).toBe(503);
  expect(answer.retryAfter).toBe("5");
  expect(answer.body).toEqual({
    schemas: [ERROR_SCHEMA],
    status: "503",
    detail: expect.stringMatching(/cannot reach its database\. Retry in 5 seconds/),
  });
}

/** Only acknowledgements and 503s: a 500, or any other failure, would be a fault the outage exposed. */
function expectOnly2xxOr503(record: LoadRecord): void {
  const statuses = new Map<number, number>();
  for (const answer of record.answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  expect(
    [...statuses.keys()].filter((status) => !(status >= 200 && status < 300) && status !== 503),
    JSON.stringify(Object.fromEntries(statuses)),
  ).toEqual([]);
  for (const answer of record.answers.filter((each) => each.status === 503)) expectUnavailable(answer);
}

/** No user without its userName key, no key without its user, no member row naming a resource that is gone. */
async function expectWholeRows(store: SqlStore): Promise<void> {
  const { rows } = await sql<{ readonly orphan_users: number; readonly orphan_keys: number; readonly orphan_members: number }>`
    select
      (select count(*)::int from scimkit_resources r where r.resource_type = 'User' and not exists
        (select 1 from scimkit_unique_keys k where k.org_id = r.org_id and k.id = r.id and k.attribute = 'userName')) as orphan_users,
      (select count(*)::int from scimkit_unique_keys k where not exists
        (select 1 from scimkit_resources r where r.org_id = k.org_id and r.id = k.id)) as orphan_keys,
      (select count(*)::int from scimkit_members m where not exists
        (select 1 from scimkit_resources r where r.org_id = m.org_id and r.id = m.member_id)) as orphan_members`.execute(store.db);
  expect(rows[0]).toEqual({ orphan_users: 0, orphan_keys: 0, orphan_members: 0 });
}

const until = async (condition: () => boolean, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe("a PostgreSQL server that cannot be reached", () => {
  it("answers every request 503 with Retry-After as a SCIM error, within a second, whether the store or the token check asks", async () => {
    const port = await freePort();
    // openPostgres and sqlResourceStore: sqlStore would fail at open, before any request.
    const db = await openPostgres(`postgres://postgres@127.0.0.1:${port}/test`);
    const store = sqlResourceStore(db, postgresDialect);
    const targets = [
      await host(store),
      { ...(await host(store, createTokenStore({ repository: sqlTokenRepository(db, postgresDialect) }))), token: "scimkit_unknown" },
    ];
    try {
      for (const target of targets) {
        for (const [method, path, body] of [
          ["GET", "/Users", undefined],
          ["GET", `/Users?filter=${encodeURIComponent('userName eq "a@example.com"')}`, undefined],
          [
            "POST",
            "/Users",
            {
              schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
              userName: "a@example.com",
              name: { givenName: "A", familyName: "B" },
              emails: [{ value: "a@example.com", type: "work" }],
            },
          ],
          [
            "PATCH",
            "/Groups/0190f1d4-0000-7000-8000-000000000000",
            {
              schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
              Operations: [{ op: "add", path: "members", value: [{ value: "x" }] }],
            },
          ],
          ["DELETE", "/Users/0190f1d4-0000-7000-8000-000000000000", undefined],
        ] as const) {
          const started = performance.now();
          const response = await fetch(`${target.base()}${path}`, {
            method,
            headers: { Authorization: `Bearer ${target.token}`, "Content-Type": "application/scim+json" },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          const elapsed = performance.now() - started;
          expect(response.headers.get("content-type")).toMatch(/^application\/scim\+json/);
          expectUnavailable({ status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() });
          expect(elapsed, `${method} ${path}`).toBeLessThan(1_000);
        }
      }
    } finally {
      await db.destroy();
    }
  });

  it("answers the analytics interface 503 with Retry-After as an `unavailable` problem, not a 500", async () => {
    const port = await freePort();
    const db = await openPostgres(`postgres://postgres@127.0.0.1:${port}/test`);
    const errors: unknown[] = [];
    const app = express();
    app.use(
      "/analytics/v1",
      createAnalyticsRouter({
        // Its tables are not migrated: the database is unreachable, which is the point.
        store: await sqlAnalyticsStore({ db, dialect: postgresDialect }, { migrate: false }),
        scimTokens: createTokenStore({ repository: sqlTokenRepository(db, postgresDialect) }),
        scimBaseUrl: () => undefined,
        onError: (error) => void errors.push(error),
      }),
    );
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    servers.push(server);
    try {
      const { port: hostPort } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${hostPort}/analytics/v1/organizations`, {
        headers: { Authorization: "Bearer scimkit_ak_unknown" },
      });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(await response.json()).toEqual({
        type: "https://scimkit.dev/problems/unavailable",
        title: "Service unavailable",
        status: 503,
        detail: expect.stringMatching(/cannot reach its database\. Retry in 5 seconds/),
      });
      // An outage is the operator's to see in the database's own logs, not an unexpected failure.
      expect(errors).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it("bounds the wait for a server that does not answer at all by connect_timeout", async () => {
    // A listener that accepts connections and never speaks: PostgreSQL behind a dead network path
    // looks the same to the client.
    const { createServer } = await import("node:net");
    const sockets: import("node:net").Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as import("node:net").AddressInfo).port;
    const db = await openPostgres(`postgres://postgres@127.0.0.1:${port}/test?connect_timeout=1`);
    const target = await host(sqlResourceStore(db, postgresDialect));
    try {
      const started = performance.now();
      const response = await fetch(`${target.base()}/Users`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const elapsed = performance.now() - started;
      expectUnavailable({ status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() });
      expect(elapsed).toBeGreaterThan(900);
      expect(elapsed).toBeLessThan(2_500);
    } finally {
      await db.destroy();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});

const server = await startThrowawayPostgres();
afterAll(async () => {
  if (typeof server !== "string") await server.remove();
});
const describeOwnServer = typeof server === "string" ? describe.skip : describe;
const ownServerName = "PostgreSQL stopped mid-load and started again (a server of the test's own)";

describeOwnServer(typeof server === "string" ? `${ownServerName} [skipped because ${server}]` : ownServerName, () => {
  it("fails fast with 503 while it is down, loses no acknowledged write, half-writes nothing, and resumes by itself", async () => {
    if (typeof server === "string") return;
    const store = await sqlStore({ postgres: server.url });
    const target = await host(store);
    try {
      const groups = await createGroups(target, "restart", 3);
      const load = startWriteLoad(target, { prefix: "restart", groups, workers: 6 });
      await until(() => load.record.created.size >= 40, 10_000);
      const down = performance.now();
      await server.stop("immediate");
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await server.start();
      const up = performance.now();
      const createdBeforeUp = load.record.created.size;
      await until(() => load.record.created.size >= createdBeforeUp + 40, 15_000);
      const record = await load.stop();

      expectOnly2xxOr503(record);
      const unavailable = record.answers.filter((answer) => answer.status === 503);
      expect(unavailable.length).toBeGreaterThan(0);
      // Fail fast: nothing waits for a connection that cannot come.
      const slowest = Math.max(...unavailable.map((answer) => answer.ms));
      expect(slowest).toBeLessThan(1_000);
      // Resumes by itself: the first acknowledgement sent after the server is back comes within 2 s of it.
      const firstAfter = record.answers.find((answer) => answer.status >= 200 && answer.status < 300 && load.startedAt + answer.at >= up);
      expect(firstAfter, "an acknowledgement after the restart").toBeDefined();
      const resumedMs = load.startedAt + (firstAfter?.at ?? 0) + (firstAfter?.ms ?? 0) - up;
      expect(resumedMs).toBeLessThan(2_000);

      const verified = await verifyAcknowledged(target, record, groups);
      await expectWholeRows(store);
      console.log(
        `[faults] PostgreSQL stopped (immediate) for ${((up - down) / 1000).toFixed(1)} s under 6 writers: ${record.answers.length} answers, ` +
          `${unavailable.length} × 503 (slowest ${slowest.toFixed(0)} ms), first acknowledgement ${resumedMs.toFixed(0)} ms after the restart; ` +
          `${verified.usersPresent} acknowledged users present, ${verified.usersDeleted} deletes held, ${verified.members} members all existing, ` +
          `${verified.unacknowledgedButWritten} of ${record.unacknowledgedCreates.size} unacknowledged creates written whole`,
      );
    } finally {
      await store.close();
    }
  }, 60_000);
});

describePostgres("the store's connections terminated mid-load (pg_terminate_backend on the shared server)", (url) => {
  it("answers 503 or succeeds, loses no acknowledged write, half-writes nothing, and keeps serving", async () => {
    const schema = await createTestSchema(url);
    const applicationName = `scimkit_faults_${randomBytes(4).toString("hex")}`;
    const storeUrl = new URL(url);
    storeUrl.searchParams.set("application_name", applicationName);
    const store = await sqlStore({ postgres: storeUrl.toString(), schema: schema.name });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const target = await host(store);
      const groups = await createGroups(target, "terminate", 3);
      const load = startWriteLoad(target, { prefix: "terminate", groups, workers: 6 });
      let terminated = 0;
      for (let round = 0; round < 6; round += 1) {
        await until(() => load.record.created.size >= 20 * (round + 1), 10_000);
        const { rows } = await admin.query<{ readonly ended: boolean }>(
          "select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()",
          [applicationName],
        );
        terminated += rows.filter((row) => row.ended).length;
      }
      const createdAfterLast = load.record.created.size;
      await until(() => load.record.created.size >= createdAfterLast + 20, 10_000);
      const record = await load.stop();

      expectOnly2xxOr503(record);
      expect(terminated).toBeGreaterThan(0);
      const verified = await verifyAcknowledged(target, record, groups);
      await expectWholeRows(store);
      const unavailable = record.answers.filter((answer) => answer.status === 503).length;
      console.log(
        `[faults] ${terminated} store connections terminated in 6 rounds under 6 writers: ${record.answers.length} answers, ${unavailable} × 503, ` +
          `${verified.usersPresent} acknowledged users present, ${verified.members} members all existing`,
      );
    } finally {
      await admin.end();
      await store.close();
      await schema.drop();
    }
  }, 60_000);
});
