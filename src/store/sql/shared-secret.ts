/**
 * A secret every process on one database shares, kept in `scimkit_settings` (migration 10). The
 * first process to ask generates it; a concurrent first ask by another process loses the insert
 * race and reads the winner's, so all of them end up with one value.
 */
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { SqlStoreDatabase } from "./sql-tables.js";

/** 256 bits: the size of the HMAC-SHA-256 key it usually becomes. */
const SECRET_BYTES = 32;

/** The secret kept under `name`, generated (base64url, 256 bits) and stored on first use. */
export async function sharedSecret(db: Kysely<SqlStoreDatabase>, name: string): Promise<string> {
  const generated = randomBytes(SECRET_BYTES).toString("base64url");
  await db
    .insertInto("scimkit_settings")
    .values({ name, value: generated })
    .onConflict((conflict) => conflict.column("name").doNothing())
    .execute();
  const row = await db.selectFrom("scimkit_settings").select("value").where("name", "=", name).executeTakeFirstOrThrow();
  return row.value;
}
