/**
 * The small tables the table store keeps beside the application's own, for what a mapping
 * leaves out: `scimkit_table_meta`, the version and times of each resource (RFC 7644 §3.14 ETags,
 * RFC 7643 §3.1 `meta`) that the mapping keeps in no column of its own (`table-meta.ts`), and `scimkit_table_keys`, the unique values the core derives
 * (`uniqueKeysOf`: NFC, lower-cased unless caseExact), whose primary key decides a race between
 * two writers exactly as the SQL store's `scimkit_unique_keys` does. Both are keyed by
 * organization, resource type and the id as text, so they serve any table and any id kind. And
 * `scimkit_table_generations`, the list generations (issue 29) that the application's triggers
 * keep (`tableStoreTriggersSql`), empty without them.
 */
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";

/** Version and times per resource. */
export const TABLE_META = "scimkit_table_meta";

/** Unique values per resource. */
export const TABLE_KEYS = "scimkit_table_keys";

/** List generations per organization and resource type, in slots (as `scimkit_list_generations`). */
export const TABLE_GENERATIONS = "scimkit_table_generations";

/**
 * Creates `scimkit_table_generations` where missing: run by `createSideTables`, and by the
 * application's migration before its triggers (`tableStoreTriggersSql`), which may come first.
 */
export function createGenerationsTable(dialect: Pick<SqlDialect, "columnTypes">): RawBuilder<unknown> {
  const { key, counter } = dialect.columnTypes;
  // Led by the organization, as every key is (docs/scaling.md); only ever incremented, so the sum
  // of a list's slots never returns to an earlier value.
  return sql`create table if not exists ${sql.table(TABLE_GENERATIONS)} (
      org_id ${key} not null, resource_type ${key} not null, slot integer not null, generation ${counter} not null,
      primary key (org_id, resource_type, slot))`;
}

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
    await createGenerationsTable(dialect).execute(trx);
  });
}
