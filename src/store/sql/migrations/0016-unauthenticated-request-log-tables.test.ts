/**
 * Migration 16 (the provisioning log's space for requests without a valid token, issue 27): on
 * SQLite and PostgreSQL, a database at version 15 whose log holds an organization's entry keeps it,
 * gains both tables empty, and then keeps a request without a token apart from that organization;
 * migrating again applies nothing.
 */
import { type Kysely, sql } from "kysely";
import { expect, it } from "vitest";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { sqlRequestLog } from "../request-log/sql-request-log.js";
import { describeOnEachDatabase, type OpenMigrationDatabase } from "./migration-databases.fixture.js";
import { runMigrations } from "./run-migrations.js";
import { sqlMigrations } from "./sql-migrations.js";

const throughVersion15 = sqlMigrations.filter((migration) => migration.version <= 15);
// Up to this one: later versions are theirs to test.
const throughVersion16 = sqlMigrations.filter((migration) => migration.version <= 16);

const count = async (db: Kysely<SqlStoreDatabase>, table: string): Promise<number> =>
  Number((await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]?.n);

function migrationChecks(dialect: SqlDialect, open: OpenMigrationDatabase): void {
  it("adds the unauthenticated tables beside a version 15 log, which keeps its entries", async () => {
    const { db, close } = await open();
    try {
      expect((await runMigrations(db, dialect, throughVersion15)).at(-1)).toBe(15);
      const entry = {
        requestId: "r-1",
        orgId: "acme",
        at: "2026-01-01T00:00:00.000Z",
        method: "GET",
        path: "/scim/Organizations/acme/v2/Users",
        status: 200,
        durationMs: 2,
        authenticated: true,
        identityProvider: "other",
      } as const;
      const before = sqlRequestLog({ db, dialect }, { flushIntervalMs: 3_600_000, retentionIntervalMs: 3_600_000 });
      before.record(entry);
      await before.close();

      expect(await runMigrations(db, dialect, throughVersion16)).toEqual([16]);
      expect(await runMigrations(db, dialect, throughVersion16)).toEqual([]);
      expect(await count(db, "scimkit_unauthenticated_log")).toBe(0);
      expect(await count(db, "scimkit_unauthenticated_drops")).toBe(0);

      const log = sqlRequestLog({ db, dialect }, { flushIntervalMs: 3_600_000, retentionIntervalMs: 3_600_000 });
      const { authenticated: _, ...rest } = entry;
      const knock = { ...rest, requestId: "knock-1", status: 401 };
      log.recordUnauthenticated(knock);
      expect((await log.list("acme")).entries).toEqual([entry]);
      expect((await log.listUnauthenticated()).entries).toEqual([knock]);
      await log.close();
    } finally {
      await close();
    }
  });
}

describeOnEachDatabase("migration 16", migrationChecks);
