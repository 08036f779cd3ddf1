/**
 * The rows of a child table (`ChildTableMapping`): one per element of a multi-valued attribute,
 * in the order the client gave them. A write replaces a resource's rows; reads load the rows of a
 * whole page in one query.
 */
import { sql, type Kysely } from "kysely";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { chunksOf } from "../chunks.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { ChildColumns } from "./mapped-columns.js";
import type { ChildRow } from "./table-row.js";

type Trx = Kysely<SqlStoreDatabase>;

/** Makes `rows` the elements of owner `owner` (its id column's value). */
export async function replaceChildRows(trx: Trx, child: ChildColumns, owner: string | number, rows: readonly ChildRow[]): Promise<void> {
  const { table, owner: ownerColumn, position } = child.mapping;
  await sql`delete from ${sql.table(table)} where ${sql.id(ownerColumn)} = ${sql.val(owner)}`.execute(trx);
  if (rows.length === 0) return;
  const names = child.columns.map((column) => column.column);
  await sql`insert into ${sql.table(table)} (${sql.join([ownerColumn, position, ...names].map((name) => sql.id(name)))}) values ${sql.join(
    rows.map((row, index) => sql`(${sql.join([sql.val(owner), sql.val(index), ...names.map((name) => sql.val(row[name] ?? null))])})`),
  )}`.execute(trx);
}

/** Removes every row of owner `owner`. */
export async function deleteChildRows(trx: Trx, child: ChildColumns, owner: string | number): Promise<void> {
  await sql`delete from ${sql.table(child.mapping.table)} where ${sql.id(child.mapping.owner)} = ${sql.val(owner)}`.execute(trx);
}

/** The rows of each owner in `owners` (id column values), keyed by the owner's id as text, in order. */
export async function readChildRows(
  trx: Trx,
  dialect: SqlDialect,
  child: ChildColumns,
  owners: readonly (string | number)[],
): Promise<Map<string, Readonly<Record<string, unknown>>[]>> {
  const found = new Map<string, Readonly<Record<string, unknown>>[]>();
  const { table, owner, position } = child.mapping;
  const names = child.columns.map((column) => column.column);
  for (const part of chunksOf(owners, dialect.maxParameters - 8)) {
    const rows = await sql<Readonly<Record<string, unknown>>>`select ${sql.id(owner)} as scimkit_owner, ${sql.join(
      names.map((name) => sql.id(name)),
    )} from ${sql.table(table)} where ${sql.id(owner)} in (${sql.join(part.map((id) => sql.val(id)))}) order by ${sql.id(owner)}, ${sql.id(
      position,
    )}`.execute(trx);
    for (const row of rows.rows) {
      const key = String(row["scimkit_owner"]);
      const list = found.get(key) ?? [];
      list.push(row);
      found.set(key, list);
    }
  }
  return found;
}
