/**
 * Migrations 13 and 14 (the event outbox; RFC 9967 receivers and keys): on SQLite and PostgreSQL,
 * a database at version 12 holding a user gets the empty tables beside its data; the store over it
 * then records its next write's events from sequence 1; migrating again applies nothing.
 */
import { sql } from "kysely";
import { expect, it } from "vitest";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { sqlResourceStore } from "../sql-resource-store.js";
import { describeOnEachDatabase, type OpenMigrationDatabase } from "./migration-databases.fixture.js";
import { runMigrations } from "./run-migrations.js";
import { sqlMigrations } from "./sql-migrations.js";

const throughVersion12 = sqlMigrations.filter((migration) => migration.version <= 12);
// Up to these: later versions are theirs to test.
const throughVersion14 = sqlMigrations.filter((migration) => migration.version <= 14);

function migrationChecks(dialect: SqlDialect, open: OpenMigrationDatabase): void {
  it("adds the outbox, receiver and key tables beside a version 12 database's data, and the next write records its events", async () => {
    const { db, close } = await open();
    try {
      expect((await runMigrations(db, dialect, throughVersion12)).at(-1)).toBe(12);
      // A database before migration 19 has no list generations to keep (what `sqlStore` finds out itself).
      const store = sqlResourceStore(db, { ...dialect, listGenerations: false });
      const now = new Date().toISOString();
      const unique = (userName: string) => [{ attribute: "userName", value: userName }];
      await store.create({
        orgId: "acme",
        resourceType: "User",
        id: "u1",
        now,
        attributes: { userName: "ann" },
        uniqueKeys: unique("ann"),
        unknownMembers: "ignore",
      });
      expect(await runMigrations(db, dialect, throughVersion14)).toEqual([13, 14]);
      expect(await runMigrations(db, dialect, throughVersion14)).toEqual([]);
      for (const table of ["scimkit_events", "scimkit_event_sequences", "scimkit_event_receivers", "scimkit_event_keys"]) {
        const empty = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
        expect(Number(empty.rows[0]?.n)).toBe(0);
      }
      expect((await store.get({ orgId: "acme", resourceType: "User", id: "u1", members: false }))?.attributes).toEqual({ userName: "ann" });
      let sequences: number[] = [];
      await store.create({
        orgId: "acme",
        resourceType: "User",
        id: "u2",
        now,
        attributes: { userName: "bob" },
        uniqueKeys: unique("bob"),
        unknownMembers: "ignore",
        events: {
          build: (result) => [{ jti: "j1", type: "user.created", resourceType: "User", resourceId: result.resource.id, resource: {} }],
          pending: false,
          leaseUntil: now,
          committed: (events) => {
            sequences = events.map((event) => event.sequence);
          },
        },
      });
      expect(sequences).toEqual([1]);
    } finally {
      await close();
    }
  });
}

describeOnEachDatabase("migrations 13 and 14", migrationChecks);
