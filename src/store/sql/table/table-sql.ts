/**
 * The SQL every operation of the table store builds over the application's table, aliased `t`:
 * the organization's rows, a row by id, its rows joined to their meta, the compiled filters'
 * source, a row lock, and constraint violations as the client's errors.
 */
import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import type { StoreScope } from "../../resource-store.js";
import type { RowLock } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { constraintViolation } from "./constraint-violation.js";
import { META_ALIAS } from "./table-meta.js";
import { tableRowSource } from "./table-row-source.js";
import { TABLE_META } from "./table-side-tables.js";
import type { TableStoreState, TypeTable } from "./table-store-state.js";

/** The alias of the application's table in every query, which the compiled filters refer to. */
export const ROW = "t";

/** A row of the application's table, with its meta columns. */
export type Row = Readonly<Record<string, unknown>>;

/** The rows of organization `orgId` (every row, for a single-organization application). */
export function orgCondition(state: TableStoreState, orgId: string): Expression<SqlBool> {
  const { organization } = state;
  return "column" in organization ? sql<SqlBool>`${sql.ref(`${ROW}.${organization.column}`)} = ${sql.val(orgId)}` : sql<SqlBool>`1 = 1`;
}

function idRef(type: TypeTable): Expression<unknown> {
  return sql.ref(`${ROW}.${type.mapping.id.column}`);
}

function idTextOf(type: TypeTable): Expression<unknown> {
  return type.mapping.id.kind === "text" ? idRef(type) : sql`cast(${idRef(type)} as text)`;
}

/** The row whose id is `id`. */
export function byId(type: TypeTable, id: string | number): Expression<SqlBool> {
  return sql<SqlBool>`${idRef(type)} = ${sql.val(id)}`;
}

/** Every row but `id`. */
export function otherThan(type: TypeTable, id: string | number): RawBuilder<unknown> {
  return sql` and ${idRef(type)} <> ${sql.val(id)}`;
}

/**
 * `select` of rows with their meta, from the table aliased `t`, joined to `scimkit_table_meta` where
 * it keeps some; `columns` adds columns after them (`, …`).
 */
export function selectRows(
  state: TableStoreState,
  type: TypeTable,
  scope: StoreScope,
  where: Expression<SqlBool>,
  tail: RawBuilder<unknown> = sql``,
  columns: RawBuilder<unknown> = sql``,
): RawBuilder<Row> {
  const { meta } = type;
  const join = meta.side
    ? sql`left join ${sql.table(TABLE_META)} as ${sql.id(META_ALIAS)} on ${sql.ref(`${META_ALIAS}.org_id`)} = ${sql.val(scope.orgId)} and ${sql.ref(
        `${META_ALIAS}.resource_type`,
      )} = ${sql.val(scope.resourceType)} and ${sql.ref(`${META_ALIAS}.id`)} = ${idTextOf(type)}`
    : sql``;
  return sql<Row>`select ${sql.ref(ROW)}.*, ${meta.version(ROW)} as scimkit_version, ${meta.created(ROW)} as scimkit_created, ${meta.lastModified(
    ROW,
  )} as scimkit_last_modified${columns} from ${sql.table(type.mapping.table)} as ${sql.id(ROW)} ${join} where ${orgCondition(state, scope.orgId)} and ${where} ${tail}`;
}

/** Where the compiled filters and sorts of a list of `type` find each attribute. */
export function sourceFor(state: TableStoreState, type: TypeTable, scope: StoreScope) {
  return tableRowSource({
    columns: type.columns,
    idColumn: type.mapping.id.column,
    idKind: type.mapping.id.kind,
    ...(type.mapping.rest ? { restColumn: type.mapping.rest.column } : {}),
    orgId: scope.orgId,
    resourceType: scope.resourceType,
    booleans: state.booleans,
    children: type.children,
    ...(type.memberMapping ? { members: { ...type.memberMapping, memberIdKind: state.options.users.id.kind } } : {}),
    meta: type.meta,
  });
}

/** Locks the row of `id` for the rest of the transaction; false when there is none. */
export async function lockRow(
  state: TableStoreState,
  trx: Kysely<SqlStoreDatabase>,
  type: TypeTable,
  scope: StoreScope,
  id: string | number,
  lock: RowLock,
): Promise<boolean> {
  const clause = state.dialect.rowLock(lock) ?? sql``;
  const found =
    await sql`select 1 as found from ${sql.table(type.mapping.table)} as ${sql.id(ROW)} where ${orgCondition(state, scope.orgId)} and ${byId(
      type,
      id,
    )} ${clause}`.execute(trx);
  return found.rows.length > 0;
}

/** Runs a statement on the application's table, its constraint violations the client's errors (`constraintViolation`). */
export async function onTable<T>(type: TypeTable, statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (error) {
    const attributeOf = (column: string): string | undefined =>
      type.columns.all.find((mapped) => mapped.column === column)?.location.join(".");
    throw constraintViolation(error, type.mapping.table, attributeOf) ?? error;
  }
}
