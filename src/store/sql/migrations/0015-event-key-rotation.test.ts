/**
 * Migration 15 (rotation of the SET signing keys): on SQLite and PostgreSQL, a database at version
 * 14 whose organization has a signing key keeps it, with no replaced keys; the key then rotates,
 * and the JWKS serves the new key and the one it replaced; migrating again applies nothing.
 */
import { sql } from "kysely";
import { expect, it } from "vitest";
import { eventSigningKeys } from "../../../events/event-signing-keys.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { sqlSigningKeyRepository } from "../sql-event-receiver-store.js";
import { describeOnEachDatabase, type OpenMigrationDatabase } from "./migration-databases.fixture.js";
import { runMigrations } from "./run-migrations.js";
import { sqlMigrations } from "./sql-migrations.js";

const throughVersion14 = sqlMigrations.filter((migration) => migration.version <= 14);
// Up to this one: later versions are theirs to test.
const throughVersion15 = sqlMigrations.filter((migration) => migration.version <= 15);

function migrationChecks(dialect: SqlDialect, open: OpenMigrationDatabase): void {
  it("keeps a version 14 organization's signing key, which then rotates", async () => {
    const { db, close } = await open();
    try {
      expect((await runMigrations(db, dialect, throughVersion14)).at(-1)).toBe(14);
      // The key as version 14 stored it: made by the same code, written in that version's columns.
      const made = await eventSigningKeys({
        get: async () => undefined,
        addIfAbsent: async (key) => {
          await sql`insert into scimkit_event_keys (org_id, kid, private_jwk, public_jwk, created_at)
            values (${key.orgId}, ${key.kid}, ${key.privateJwk}, ${key.publicJwk}, ${key.createdAt})`.execute(db);
          return key;
        },
        replaceIfCurrent: async () => undefined,
      }).signingKey("acme");
      expect(await runMigrations(db, dialect, throughVersion15)).toEqual([15]);
      expect(await runMigrations(db, dialect, throughVersion15)).toEqual([]);

      const repository = sqlSigningKeyRepository(db);
      const kept = await repository.get("acme");
      expect(kept?.kid).toBe(made.kid);
      expect(kept).not.toHaveProperty("retired");
      const keys = eventSigningKeys(repository);
      expect((await keys.signingKey("acme")).kid).toBe(made.kid);
      const rotated = await keys.rotate("acme");
      expect((await keys.jwks("acme")).keys.map((key) => key.kid)).toEqual([rotated.kid, made.kid]);
    } finally {
      await close();
    }
  });
}

describeOnEachDatabase("migration 15", migrationChecks);
