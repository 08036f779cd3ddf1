/**
 * Issue 18's redaction test: requests carrying every kind of secret go through a real SCIM router
 * into each reference provisioning log (memory, SQLite, PostgreSQL); then everything the log
 * stored is read raw — every column of every row as text for SQL, the JSON of every entry for
 * memory — and searched for each secret. None may be there.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryRequestLog } from "../../src/request-log/memory-request-log.js";
import type { ReadableRequestLog } from "../../src/request-log/readable-request-log.js";
import type { RequestLogEntry } from "../../src/request-log/request-log.js";
import { attribute } from "../../src/scim/schema/attribute-definition.js";
import { createSchemaRegistry } from "../../src/scim/schema/schema-registry.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../src/store/sql/postgres-test-database.fixture.js";
import { type SqlRequestLog, sqlRequestLog } from "../../src/store/sql/request-log/sql-request-log.js";
import { type SqlStore, sqlStore } from "../../src/store/sql/sql-store.js";
import { PATCH_SCHEMA, USER_SCHEMA, createTestApp, userBody } from "./harness.js";

const BADGE_SCHEMA = "urn:example:params:scim:schemas:extension:badge:2.0:User";
const BULK_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";

// One secret per way in, so a failure names the way that leaked.
const SECRETS = {
  createPassword: "pw-create-7Qx2",
  failedCreatePassword: "pw-failed-create-9Lk4",
  conflictPassword: "pw-conflict-3Vb8",
  putPassword: "pw-put-1Zr5",
  patchValuePassword: "pw-patch-value-6Hn3",
  patchPathPassword: "pw-patch-path-2Wm7",
  patchUrnPathPassword: "pw-patch-urn-path-8Cd1",
  bulkCreatePassword: "pw-bulk-create-4Ty6",
  bulkPatchPassword: "pw-bulk-patch-5Gs9",
  unauthenticatedPassword: "pw-unauthenticated-0Pj2",
  accessToken: "tok-access-3Nq7",
  apiKey: "key-api-6Ux1",
  clientSecret: "secret-client-9Ee5",
  writeOnlyAttribute: "code-recovery-2Ko8",
  writeOnlyPatch: "code-recovery-patch-7Ai3",
  wrongBearerToken: "bearer-wrong-4Sd6",
  // Issue 27: a token in the query, on an authenticated request and on a 401 naming acme.
  queryAccessToken: "tok-query-5Rb2",
  unauthenticatedQueryToken: "tok-query-401-8Mx4",
  queryClientSecret: "secret-query-6Tn1",
  // Issue 27: a PATCH operation with both `path` and `Path`, only the second naming the password.
  patchDuplicatePathPassword: "pw-patch-dup-path-3Fz9",
  patchDuplicatePathUpperFirst: "pw-patch-dup-path-upper-1Qw5",
} as const;

function registry() {
  return createSchemaRegistry({
    schemas: [
      {
        id: BADGE_SCHEMA,
        name: "Badge",
        description: "Badge",
        attributes: [attribute("badgeNumber"), attribute("recoveryCode", { mutability: "writeOnly", returned: "never" })],
      },
    ],
    extensions: [{ resourceType: "User", schema: BADGE_SCHEMA, required: false }],
  });
}

/** A log under test, its router's store, and everything it stored, raw. */
interface LogUnderTest {
  readonly log: ReadableRequestLog;
  readonly store?: ResourceStore;
  /** Every stored entry as raw text: each column of each row, or each entry's JSON. */
  raw(): Promise<string>;
  close(): Promise<void>;
}

/** Sends a request for every kind of secret; returns the client's X-Request-Id and the number of requests. */
async function sendSecrets(
  t: Awaited<ReturnType<typeof createTestApp>>,
): Promise<{ readonly clientRequestId: string; readonly sent: number }> {
  const clientRequestId = "client-req-redaction-1";
  const withBadge = (userName: string, code: string, extra: Record<string, unknown> = {}) =>
    userBody(userName, {
      schemas: [USER_SCHEMA, BADGE_SCHEMA],
      [BADGE_SCHEMA]: { badgeNumber: "B-1", recoveryCode: code },
      ...extra,
    });
  const created = await t
    .post("/Users", withBadge("alice", SECRETS.writeOnlyAttribute, { password: SECRETS.createPassword }))
    .set("X-Request-Id", clientRequestId)
    .set("User-Agent", "Okta SCIM Client 1.0.0")
    .expect(201);
  const id = (created.body as { id: string }).id;
  await t.post("/Users", { schemas: [USER_SCHEMA], password: SECRETS.failedCreatePassword }).expect(400);
  await t.post("/Users", userBody("alice", { password: SECRETS.conflictPassword })).expect(409);
  await t.put(`/Users/${id}`, userBody("alice", { password: SECRETS.putPassword })).expect(200);
  await t
    .patch(`/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", value: { password: SECRETS.patchValuePassword } }] })
    .expect(200);
  await t
    .patch(`/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "password", value: SECRETS.patchPathPassword }] })
    .expect(200);
  await t
    .patch(`/Users/${id}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: "replace", path: `${USER_SCHEMA}:password`, value: SECRETS.patchUrnPathPassword }],
    })
    .expect(200);
  await t
    .patch(`/Users/${id}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: "replace", path: `${BADGE_SCHEMA}:recoveryCode`, value: SECRETS.writeOnlyPatch }],
    })
    .expect(200);
  await t
    .patch(`/Users/${id}`, {
      schemas: [PATCH_SCHEMA],
      // The service reads `path` (RFC 7644 §3.5.2's spelling) when both are there: the password is set.
      Operations: [{ op: "replace", Path: "displayName", path: "password", value: SECRETS.patchDuplicatePathPassword }],
    })
    .expect(200);
  await t
    .patch(`/Users/${id}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: "replace", PATH: "nickName", path: "PassWord", VALUE: SECRETS.patchDuplicatePathUpperFirst }],
    })
    .expect(200);
  await t.get(`/Users?access_token=${SECRETS.queryAccessToken}&client_secret=${SECRETS.queryClientSecret}&count=1`).expect(200);
  await t
    .post("/Bulk", {
      schemas: [BULK_SCHEMA],
      Operations: [
        { method: "POST", path: "/Users", bulkId: "b1", data: userBody("bob", { password: SECRETS.bulkCreatePassword }) },
        {
          method: "PATCH",
          path: `/Users/${id}`,
          data: { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "password", value: SECRETS.bulkPatchPassword }] },
        },
      ],
    })
    .expect(200);
  // Members named like credentials, in a schema that does not declare them: refused or ignored, never kept.
  await t.post(
    "/Users",
    userBody("carol", { accessToken: SECRETS.accessToken, apiKey: SECRETS.apiKey, clientSecret: SECRETS.clientSecret }),
  );
  await request(t.app).get(`${t.base()}/Users?access_token=${SECRETS.unauthenticatedQueryToken}`).expect(401);
  await request(t.app)
    .post(`${t.base()}/Users`)
    .set("Authorization", `Bearer ${SECRETS.wrongBearerToken}`)
    .set("Content-Type", "application/scim+json")
    .send(JSON.stringify(userBody("mallory", { password: SECRETS.unauthenticatedPassword })))
    .expect(401);
  await t.get(`/Users/${id}`).expect(200);
  // 14 with a valid token, in acme's log; 2 without, in the log's unauthenticated space.
  return { clientRequestId, sent: 14 };
}

async function allEntries(log: ReadableRequestLog, orgId: string): Promise<RequestLogEntry[]> {
  return [...(await log.list(orgId, { limit: 1000 })).entries];
}

async function settle(log: ReadableRequestLog, count: number): Promise<RequestLogEntry[]> {
  // The router hands entries over after each response, on a later turn of the event loop.
  for (let turn = 0; turn < 200; turn++) {
    const entries = await allEntries(log, "acme");
    if (entries.length >= count) return entries;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`expected ${count} entries`);
}

/** Every column of every row of `scimkit_request_log` and of `scimkit_unauthenticated_log`, as text. */
async function rawRows(store: SqlStore): Promise<string> {
  const result = await sql<Record<string, unknown>>`select * from scimkit_request_log`.execute(store.db);
  const unauthenticated = await sql<Record<string, unknown>>`select * from scimkit_unauthenticated_log`.execute(store.db);
  expect(result.rows.length).toBeGreaterThan(0);
  expect(unauthenticated.rows.length).toBe(2);
  return [...result.rows, ...unauthenticated.rows].map((row) => Object.values(row).map(String).join("\u0001")).join("\n");
}

function checkRedaction(name: string, open: () => Promise<LogUnderTest>): void {
  it(`${name}: keeps no secret in any stored entry, and finds the client's request id`, async () => {
    const underTest = await open();
    try {
      const t = await createTestApp({
        requestLog: underTest.log,
        registry: registry(),
        ...(underTest.store === undefined ? {} : { store: underTest.store }),
      });
      const { clientRequestId, sent } = await sendSecrets(t);
      const entries = await settle(underTest.log, sent);
      expect(entries).toHaveLength(sent);
      expect(t.errors).toEqual([]);
      const raw = await underTest.raw();
      for (const [kind, secret] of Object.entries({ ...SECRETS, acmeBearerToken: t.token.acme })) {
        expect(raw.includes(secret), `${kind} leaked into the stored log`).toBe(false);
      }
      // The secrets were there to leak: the bodies that carried them are kept, redacted.
      expect(raw).toContain("[redacted]");
      expect(raw).toContain("access_token=[redacted]");
      expect(raw).toMatch(/userName\\?":\\?"alice/);
      const found = (await underTest.log.list("acme", { requestId: clientRequestId })).entries;
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ status: 201, identityProvider: "okta", authenticated: true });
      expect(JSON.parse(found[0]?.requestBody ?? "")).toMatchObject({
        password: "[redacted]",
        [BADGE_SCHEMA]: { badgeNumber: "B-1", recoveryCode: "[redacted]" },
      });
      const bulk = entries.find((entry) => entry.bulkOperations !== undefined);
      expect(bulk?.bulkOperations).toBe(2);
    } finally {
      await underTest.close();
    }
  });
}

describe("the provisioning log's redaction, read raw", () => {
  checkRedaction("memoryRequestLog", async () => {
    const log = memoryRequestLog({ capacity: 1000 });
    return {
      log,
      raw: async () =>
        JSON.stringify([
          ...(await allEntries(log, "acme")),
          ...(await allEntries(log, "globex")),
          ...((await log.listUnauthenticated?.({ limit: 1000 }))?.entries ?? []),
        ]),
      close: async () => {},
    };
  });

  describe("on SQLite", () => {
    let directory = "";
    beforeAll(() => {
      directory = mkdtempSync(join(tmpdir(), "scimkit-redaction-"));
    });
    afterAll(() => {
      rmSync(directory, { recursive: true, force: true });
    });
    checkRedaction("sqlRequestLog (SQLite file)", async () => {
      const store = await sqlStore({ sqlite: join(directory, "scim.db") });
      const log: SqlRequestLog = sqlRequestLog(store, { onError: (error) => expect.fail(String(error)) });
      return {
        log,
        store,
        raw: async () => {
          await log.flush();
          return rawRows(store);
        },
        close: async () => {
          await log.close();
          await store.close();
        },
      };
    });
  });
});

describePostgres("the provisioning log's redaction, read raw, on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  checkRedaction("sqlRequestLog (PostgreSQL)", async () => {
    if (!schema) throw new Error("the schema was not made (see beforeAll)");
    const store = await sqlStore({ postgres: schema.pool() });
    const log = sqlRequestLog(store, { onError: (error) => expect.fail(String(error)) });
    return {
      log,
      store,
      raw: async () => {
        await log.flush();
        return rawRows(store);
      },
      close: async () => {
        await log.close();
        await store.close();
      },
    };
  });
});
