/**
 * The two small tables the table store keeps beside the application's own, for what a mapping
 * leaves out: `scimkit_table_meta`, the version and times of each resource (RFC 7644 §3.14 ETags,
 * RFC 7643 §3.1 `meta`) that the mapping keeps in no column of its own (`table-meta.ts`), and `scimkit_table_keys`, the unique values the core derives
 * (`uniqueKeysOf`: NFC, lower-cased unless caseExact), whose primary key decides a race between
 * two writers exactly as the SQL store's `scimkit_unique_keys` does. Both are keyed by
 * organization, resource type and the id as text, so they serve any table and any id kind.
 */
import { sql, type Kysely } from "kysely";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";

/** Version and times per resource. */
export const TABLE_META = "scimkit_table_meta";

/** Unique values per resource. */
export const TABLE_KEYS = "scimkit_table_keys";

/**
 * Creates the side tables where they are missing. Idempotent; two processes starting at once
 * both succeed (`migrationTransaction` holds the dialect's migration lock).
 */
export async function createSideTables(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect): Promise<void> {
  const { key, text, counter } = dialect.columnTypes;
  await dialect.migrationTransaction(db, async (trx) => {
    await sql`create table if not exists ${sql.table(TABLE_META)} (
      org_id ${key} not null, resource_type ${key} not null, id ${key} not null,
      version ${counter} not null, created ${text} not null, last_modified ${text} not null,
      primary key (org_id, resource_type, id))`.execute(trx);
    await sql`create table if not exists ${sql.table(TABLE_KEYS)} (
      org_id ${key} not null, resource_type ${key} not null, attribute ${key} not null, value ${key} not null, id ${key} not null,
      primary key (org_id, resource_type, attribute, value))`.execute(trx);
    // Releasing a resource's keys on update or delete finds them by id.
    await sql`create index if not exists scimkit_table_keys_by_id on ${sql.table(TABLE_KEYS)} (org_id, resource_type, id)`.execute(trx);
  });
}
