/**
 * Migration 7 (unique keys in NFC): on SQLite and PostgreSQL, a database at version 6 whose keys
 * were written in NFD gets them in NFC, found past the first page of the scan; a key whose NFC form
 * another resource holds already is left as it was; ASCII keys are untouched; migrating again
 * applies nothing.
 */
import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import { chunksOf } from "../chunks.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { describeOnEachDatabase, type OpenMigrationDatabase } from "./migration-databases.fixture.js";
import { runMigrations } from "./run-migrations.js";
import { sqlMigrations } from "./sql-migrations.js";

const throughVersion6 = sqlMigrations.filter((migration) => migration.version <= 6);
// Up to this one: later versions are theirs to test.
const throughVersion7 = sqlMigrations.filter((migration) => migration.version <= 7);
const TIME = "2024-01-01T00:00:00.000Z";

/** Users as version 6 wrote them: the key is the userName lower-cased, in the form it was sent. */
async function insertUsers(db: Kysely<SqlStoreDatabase>, users: readonly (readonly [id: string, userName: string])[]): Promise<void> {
  for (const chunk of chunksOf(users, 500)) {
    await db
      .insertInto("scimkit_resources")
      .values(
        chunk.map(([id, userName]) => ({
          org_id: "acme",
          id,
          resource_type: "User",
          version: 1,
          created: TIME,
          last_modified: TIME,
          external_id: null,
          attributes: JSON.stringify({ userName }),
          member_seq: null,
        })),
      )
      .execute();
    await db
      .insertInto("scimkit_unique_keys")
      .values(
        chunk.map(([id, userName]) => ({
          org_id: "acme",
          resource_type: "User",
          attribute: "userName",
          value: userName.toLowerCase(),
          id,
        })),
      )
      .execute();
  }
}

function migrationChecks(dialect: SqlDialect, open: OpenMigrationDatabase): void {
  it("rewrites NFD keys to NFC, past the first page, and leaves a key whose NFC form is taken", async () => {
    const { db, close } = await open();
    try {
      expect(await runMigrations(db, dialect, throughVersion6)).toEqual([1, 2, 4, 5, 6]);
      const ascii = Array.from({ length: 1500 }, (_, index) => [`u${index}`, `user${String(index).padStart(4, "0")}`] as const);
      await insertUsers(db, [
        ...ascii,
        ["nfd", "A\u030angstro\u0308m"],
        ["nfc", "Zo\u00eb"],
        // Both existed before version 7, which saw two names; only one can hold the NFC key.
        ["cafe-nfc", "Caf\u00e9"],
        ["cafe-nfd", "Cafe\u0301"],
      ]);
      expect(await runMigrations(db, dialect, throughVersion7)).toEqual([7]);
      const keys = await db.selectFrom("scimkit_unique_keys").select(["id", "value"]).where("id", "not like", "u%").orderBy("id").execute();
      expect(keys).toEqual([
        { id: "cafe-nfc", value: "caf\u00e9" },
        { id: "cafe-nfd", value: "cafe\u0301" },
        { id: "nfc", value: "zo\u00eb" },
        { id: "nfd", value: "\u00e5ngstr\u00f6m" },
      ]);
      const untouched = await db.selectFrom("scimkit_unique_keys").select(["id", "value"]).where("id", "like", "u%").execute();
      expect(new Map(untouched.map((row) => [row.id, row.value]))).toEqual(new Map(ascii));
      // The attributes keep what the client sent.
      const stored = await db.selectFrom("scimkit_resources").select("attributes").where("id", "=", "nfd").executeTakeFirstOrThrow();
      expect(dialect.fromJson(stored.attributes)).toEqual({ userName: "A\u030angstro\u0308m" });
      expect(await runMigrations(db, dialect, throughVersion7)).toEqual([]);
    } finally {
      await close();
    }
  });
}

describeOnEachDatabase("migration 7 (NFC unique keys)", migrationChecks);
