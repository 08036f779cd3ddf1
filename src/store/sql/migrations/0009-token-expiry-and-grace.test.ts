/**
 * Migration 9 (token expiry and rotation grace): on SQLite and PostgreSQL, a database at version 8
 * holding a token gets the new columns empty, the token keeps verifying as before, and it can then
 * be given an expiry and rotated with a grace period; migrating again applies nothing.
 */
import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import { hashToken } from "../../../auth/hash-token.js";
import { createTokenStore } from "../../../auth/hashed-token-store.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { sqlTokenRepository } from "../sql-token-repository.js";
import { describeOnEachDatabase, type OpenMigrationDatabase } from "./migration-databases.fixture.js";
import { runMigrations } from "./run-migrations.js";
import { sqlMigrations } from "./sql-migrations.js";

const throughVersion8 = sqlMigrations.filter((migration) => migration.version <= 8);
// Up to this one: later versions are theirs to test.
const throughVersion9 = sqlMigrations.filter((migration) => migration.version <= 9);
const TOKEN = "scimkit_issued-before-version-9-AAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const request = { method: "GET", path: "/Users" } as const;

function migrationChecks(dialect: SqlDialect, open: OpenMigrationDatabase): void {
  it("adds empty expiry and previous-digest columns; a version 8 token keeps verifying and can then rotate with grace", async () => {
    const { db, close } = await open();
    try {
      const applied = await runMigrations(db, dialect, throughVersion8);
      expect(applied.at(-1)).toBe(8);
      // A row as version 8 wrote it: no expiry, no previous digest.
      await (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
        .insertInto("scimkit_tokens")
        .values({
          org_id: "acme",
          id: "t1",
          hash: hashToken(TOKEN),
          prefix: "scimkit_issu",
          label: "Okta",
          created_at: "2026-01-01T00:00:00.000Z",
          rotated_at: null,
          last_used_at: null,
        })
        .execute();
      expect(await runMigrations(db, dialect, throughVersion9)).toEqual([9]);
      const row = await db.selectFrom("scimkit_tokens").selectAll().where("id", "=", "t1").executeTakeFirstOrThrow();
      expect([row.expires_at, row.previous_hash, row.previous_hash_valid_until]).toEqual([null, null, null]);

      let time = Date.parse("2026-02-01T00:00:00.000Z");
      const tokens = createTokenStore({ repository: sqlTokenRepository(db, dialect), now: () => new Date(time) });
      expect(await tokens.verify(TOKEN, "acme", request)).toEqual({ orgId: "acme", tokenId: "t1", label: "Okta" });
      const rotated = await tokens.rotate("acme", "t1", { graceSeconds: 10, expiresAt: "2026-03-01T00:00:00.000Z" });
      expect(await tokens.verify(TOKEN, "acme", request)).not.toBeNull();
      time += 10_000;
      expect(await tokens.verify(TOKEN, "acme", request)).toBeNull();
      expect(await tokens.verify(rotated?.token ?? "", "acme", request)).not.toBeNull();
      expect(await runMigrations(db, dialect, throughVersion9)).toEqual([]);
    } finally {
      await close();
    }
  });
}

describeOnEachDatabase("migration 9 (token expiry and grace)", migrationChecks);
