/**
 * Deleting an organization leaves nothing of it in the SCIM namespace: not its provisioning log
 * (request and response bodies), not its recorded events (whole resources), not its event
 * receivers (their Authorization values) nor its SET signing key — and nothing of another
 * organization goes with it. On a SQLite file and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventSigningKeys } from "../../events/event-signing-keys.js";
import { createTestSchema, describePostgres, type TestSchema } from "./postgres-test-database.fixture.js";
import { sqlRequestLog } from "./request-log/sql-request-log.js";
import { sqlEventReceiverStore, sqlSigningKeyRepository } from "./sql-event-receiver-store.js";
import { type SqlStore, sqlStore } from "./sql-store.js";

const NOW = "2026-11-24T12:00:00.000Z";
const TABLES = [
  "scimkit_request_log",
  "scimkit_events",
  "scimkit_event_sequences",
  "scimkit_event_receivers",
  "scimkit_event_keys",
] as const;

/** Everything an organization leaves behind besides its resources. */
async function fill(store: SqlStore, orgId: string): Promise<void> {
  const outbox = store.events;
  if (!outbox) throw new Error("the SQL store has no outbox");
  await store.create({
    orgId,
    resourceType: "User",
    id: `${orgId}-ann`,
    now: NOW,
    attributes: { userName: "ann" },
    uniqueKeys: [{ attribute: "userName", value: "ann" }],
    unknownMembers: "ignore",
  });
  await outbox.append(
    orgId,
    [{ jti: `${orgId}-jti-1`, type: "user.created", resourceType: "User", resourceId: `${orgId}-ann`, resource: { userName: "ann" } }],
    { pending: false, leaseUntil: NOW },
  );
  const log = sqlRequestLog(store);
  log.record({
    requestId: `${orgId}-request`,
    orgId,
    at: NOW,
    method: "POST",
    path: `/scim/Organizations/${orgId}/v2/Users`,
    status: 201,
    durationMs: 1,
    authenticated: true,
    identityProvider: "entra",
    requestBody: '{"userName":"ann"}',
  });
  await log.close();
  await sqlEventReceiverStore(store.db, store.dialect).add(orgId, { url: "https://receiver.example/events", authorization: "Bearer s" }, 0);
  await eventSigningKeys(sqlSigningKeyRepository(store.db)).signingKey(orgId);
}

async function rowsOf(store: SqlStore, orgId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const rows = await store.db.selectFrom(table).select("org_id").where("org_id", "=", orgId).execute();
    counts[table] = rows.length;
  }
  return counts;
}

function behaviour(open: () => Promise<SqlStore>): void {
  it("deletes the organization's log, events, receivers and key, and leaves another's", async () => {
    const store = await open();
    try {
      await fill(store, "acme");
      await fill(store, "beta");
      const before = await rowsOf(store, "beta");
      // The sequence row is PostgreSQL's counter; on SQLite it is written only by a prune.
      expect(before).toMatchObject({ scimkit_request_log: 1, scimkit_events: 1, scimkit_event_receivers: 1, scimkit_event_keys: 1 });
      expect(await rowsOf(store, "acme")).toEqual(before);

      expect(await store.deleteOrganization?.("acme")).toBe(1);
      expect(await rowsOf(store, "acme")).toEqual(Object.fromEntries(TABLES.map((table) => [table, 0])));
      expect(await rowsOf(store, "beta")).toEqual(before);
    } finally {
      await store.close();
    }
  });
}

describe("deleting an organization on a SQLite file", () => {
  const directory = mkdtempSync(join(tmpdir(), "scimkit-delete-organization-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  behaviour(() => sqlStore({ sqlite: join(directory, "scim.db") }));
});

describePostgres("deleting an organization on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  behaviour(() => {
    if (!schema) throw new Error("the test schema was not created (see beforeAll)");
    return sqlStore({ postgres: schema.pool() });
  });
});
