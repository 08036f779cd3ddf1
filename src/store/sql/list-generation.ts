/**
 * The generation of an organization's list of one resource type (migration 19): a value that
 * changes whenever a resource of that type is created or deleted there, and never returns to an
 * earlier value. A remembered `startIndex` position is only followed while its list's generation
 * is the one it was remembered at (`rememberedPositions`).
 */
import { CompiledQuery, sql, type AliasedRawBuilder, type Expression, type Kysely, type OnConflictBuilder } from "kysely";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import type { StoreScope } from "../resource-store.js";
import { runDeferrable } from "./deferred-statement.js";
import { cachedStatementText } from "./statement-texts.js";
import type { SqlStoreDatabase } from "./sql-tables.js";

/** Slots per list: a read sums at most this many small rows. */
const SLOTS = 128;

/** On a slot that already has a row, one more. */
function incremented(conflict: OnConflictBuilder<SqlStoreDatabase, "scimkit_list_generations">) {
  return conflict
    .columns(["org_id", "resource_type", "slot"])
    .doUpdateSet({ generation: sql<number>`scimkit_list_generations.generation + 1` });
}

/**
 * The slot a write increments. On PostgreSQL the connection's backend: two transactions at once
 * are on two connections, so they never wait for each other's slot while the pool holds no more
 * than 128 connections (a random slot made one create in fifteen wait for another's commit with
 * ten writers). Elsewhere (SQLite's one writer) any slot. Constants only, so the table store's
 * triggers (`tableStoreTriggersSql`) inline it in their DDL.
 */
export function slotOf(dialect: Pick<SqlDialect, "name">): Expression<number> {
  return dialect.name === "postgres" ? sql<number>`pg_backend_pid() % ${sql.lit(SLOTS)}` : sql<number>`abs(random()) % ${sql.lit(SLOTS)}`;
}

/**
 * Increments the generation of `scope`'s list, inside the write transaction that changes it. The
 * text is compiled once per dialect (`cachedStatementText`): building the upsert each time cost a
 * create more CPU than the database's work for it.
 */
export async function bumpListGeneration(trx: Kysely<SqlStoreDatabase>, dialect: SqlDialect, scope: StoreScope): Promise<void> {
  const text = cachedStatementText(
    dialect,
    "list-generation:bump",
    () =>
      trx
        .insertInto("scimkit_list_generations")
        .values({ org_id: "", resource_type: "", slot: slotOf(dialect), generation: sql<number>`1` })
        .onConflict(incremented)
        .compile().sql,
  );
  await runDeferrable(trx, CompiledQuery.raw(text, [scope.orgId, scope.resourceType]));
}

/**
 * Increments the generation of every list of `orgId` that has resources, before they are deleted
 * with the organization: an organization created again under the same id starts from a
 * generation none of the old one's positions were remembered at.
 */
export async function bumpOrganizationGenerations(trx: Kysely<SqlStoreDatabase>, orgId: string): Promise<void> {
  await trx
    .insertInto("scimkit_list_generations")
    .columns(["org_id", "resource_type", "slot", "generation"])
    .expression((eb) =>
      eb
        .selectFrom("scimkit_resources")
        .select(["org_id", "resource_type", sql<number>`0`.as("slot"), sql<number>`1`.as("generation")])
        .where("org_id", "=", orgId)
        .distinct(),
    )
    .onConflict(incremented)
    .execute();
}

/**
 * The generation of `scope`'s list as a column `list_generation` of a statement over its rows: a
 * scalar subquery, so the generation and the rows come from one snapshot. `table` holds the slots:
 * `scimkit_list_generations` for the SQL store, `scimkit_table_generations` for the table store.
 */
export function listGenerationColumn(
  scope: StoreScope,
  table = "scimkit_list_generations",
): AliasedRawBuilder<number | string | null, "list_generation"> {
  return sql<number | string | null>`(select coalesce(sum(g.generation), 0) from ${sql.table(table)} g
    where g.org_id = ${scope.orgId} and g.resource_type = ${scope.resourceType})`.as("list_generation");
}

/** A row that carries `listGenerationColumn`. */
export interface GenerationRow {
  readonly list_generation: number | string | null;
}

/** The generation a row carries, as text (SQLite sums to a number, PostgreSQL to numeric text). */
export function generationOf(row: GenerationRow): string {
  return String(row.list_generation ?? 0);
}
