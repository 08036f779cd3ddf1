/**
 * Migration 12 (the provisioning log's table): on SQLite and PostgreSQL, a database at version 11
 * holding SCIM data gets `scimkit_request_log` and its indexes, empty, and the data untouched; an
 * entry written there reads back whole; migrating again applies nothing.
 */
import { sql } from "kysely";
import { expect, it } from "vitest";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { sqlRequestLog } from "../request-log/sql-request-log.js";
import { describeOnEachDatabase, type OpenMigrationDatabase } from "./migration-databases.fixture.js";
import { runMigrations } from "./run-migrations.js";
import { sqlMigrations } from "./sql-migrations.js";

const throughVersion11 = sqlMigrations.filter((migration) => migration.version <= 11);
// Up to this one: later versions are theirs to test.
const throughVersion12 = sqlMigrations.filter((migration) => migration.version <= 12);

function migrationChecks(dialect: SqlDialect, open: OpenMigrationDatabase): void {
  it("creates the request-log table beside a version 11 database's data, and it keeps an entry whole", async () => {
    const { db, close } = await open();
    try {
      expect((await runMigrations(db, dialect, throughVersion11)).at(-1)).toBe(11);
      await db.insertInto("scimkit_settings").values({ name: "cursor", value: "kept" }).execute();
      expect(await runMigrations(db, dialect, throughVersion12)).toEqual([12]);
      expect(await runMigrations(db, dialect, throughVersion12)).toEqual([]);
      expect(await db.selectFrom("scimkit_settings").selectAll().execute()).toEqual([{ name: "cursor", value: "kept" }]);
      const empty = await sql<{ n: number | string }>`select count(*) as n from scimkit_request_log`.execute(db);
      expect(Number(empty.rows[0]?.n)).toBe(0);

      const log = sqlRequestLog({ db, dialect }, { flushIntervalMs: 3_600_000, retentionIntervalMs: 3_600_000 });
      const entry = {
        requestId: "r-1",
        orgId: "acme",
        at: "2026-01-01T00:00:00.000Z",
        method: "PATCH",
        path: "/scim/Organizations/acme/v2/Users/u1",
        status: 400,
        scimType: "invalidPath",
        detail: "no such attribute",
        durationMs: 20.3,
        authenticated: true,
        tokenId: "t1",
        clientAddress: "::1",
        userAgent: "Microsoft.AAD.Provisioning",
        identityProvider: "entra",
        resourceType: "User",
        resourceId: "u1",
        requestBody: '{"Operations":[]}',
        requestBodyTruncated: false,
        responseBody: '{"status":"400"}',
        responseBodyTruncated: false,
      } as const;
      log.record(entry);
      await log.flush();
      expect((await log.list("acme", { resourceId: "u1" })).entries).toEqual([entry]);
      await log.close();
    } finally {
      await close();
    }
  });
}

describeOnEachDatabase("migration 12", migrationChecks);
