/**
 * The triggers that keep the table store's list generations (issue 29) on the application's own
 * tables: every insert, delete, and change of a row's organization or id — by scimkit or by the
 * application's own code, in the writer's transaction — increments the generation of the lists it
 * changes, so a `startIndex` walk may follow the position its previous page ended at
 * (`startIndexWalk`) and still get exactly the page OFFSET gives. scimkit creates no DDL on the
 * application's tables (they are its own, as its indexes are): `tableStoreTriggersSql` gives the
 * statements for its migration, and `generationTriggerTypes` tells the store at start which
 * tables have them.
 */
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type RawBuilder,
} from "kysely";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { slotOf } from "../list-generation.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { OrganizationMapping, TableMapping } from "./table-mapping.js";
import { createGenerationsTable, TABLE_GENERATIONS } from "./table-side-tables.js";

/**
 * What the triggers depend on, as `tableStore` takes it (its options will do): the organization
 * mapping, and the users' and groups' tables with their id columns.
 */
export interface TableStoreTriggersOptions {
  /** Which organization each row belongs to: a column, or one fixed organization. */
  readonly organization: OrganizationMapping;
  /** The table of users. */
  readonly users: Pick<TableMapping, "table" | "id">;
  /** The table of groups, when the store keeps groups. */
  readonly groups?: Pick<TableMapping, "table" | "id">;
}

/** One served table: its resource type and mapping. */
interface ServedTable {
  readonly resourceType: "User" | "Group";
  readonly mapping: Pick<TableMapping, "table" | "id">;
}

function servedTables(options: TableStoreTriggersOptions): readonly ServedTable[] {
  const users: ServedTable = { resourceType: "User", mapping: options.users };
  return options.groups ? [users, { resourceType: "Group", mapping: options.groups }] : [users];
}

/** The schema (when the mapping names one) and the table's own name. */
function tableParts(table: string): { readonly schema: string | undefined; readonly name: string } {
  const dot = table.lastIndexOf(".");
  return dot < 0 ? { schema: undefined, name: table } : { schema: table.slice(0, dot), name: table.slice(dot + 1) };
}

/**
 * The name of `table`'s trigger (PostgreSQL: one trigger, and its function beside the table) or
 * triggers (SQLite, whose trigger names share one namespace: one per event, suffixed).
 */
function triggerNames(dialect: Pick<SqlDialect, "name">, table: string): readonly string[] {
  const base = `scimkit_${tableParts(table).name}_generation`;
  return dialect.name === "postgres" ? [base] : [`${base}_insert`, `${base}_delete`, `${base}_update`];
}

/** A Kysely instance that only compiles, in `dialect`'s SQL: the triggers are text for a migration. */
function compilerOf(dialect: Pick<SqlDialect, "name">): Kysely<SqlStoreDatabase> {
  const postgres = dialect.name === "postgres";
  return new Kysely<SqlStoreDatabase>({
    dialect: {
      createAdapter: () => (postgres ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (postgres ? new PostgresIntrospector(db) : new SqliteIntrospector(db)),
      createQueryCompiler: () => (postgres ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
  });
}

/**
 * The statements that install the list-generation triggers on the application's tables (the
 * users table, and the groups table when mapped), for its own migration: they create
 * `scimkit_table_generations` where missing, then (re)create the triggers, so running them again
 * is harmless. Each trigger adds one small upsert to every insert or delete of a row, and to every
 * update that moves a row to another organization or id; other updates do not fire it.
 *
 * On PostgreSQL, a plpgsql function and an `after insert or delete or update of …` row trigger
 * per table (`scimkit_users_generation`), incrementing the slot of the writer's backend, so
 * concurrent writers do not queue on one row; on SQLite, three `after …` triggers per table
 * (`scimkit_users_generation_insert`, `_delete`, `_update`) calling only SQLite's own functions,
 * so any SQLite tool can still open the file. Only `sqliteDialect` and `postgresDialect`.
 *
 * @example
 * for (const statement of tableStoreTriggersSql(mapping, sqliteDialect)) await sql.raw(statement).execute(db);
 */
export function tableStoreTriggersSql(options: TableStoreTriggersOptions, dialect: SqlDialect): readonly string[] {
  if (dialect.name !== "sqlite" && dialect.name !== "postgres") {
    throw new Error(`tableStoreTriggersSql: triggers are written for SQLite and PostgreSQL only, not ${dialect.name}`);
  }
  const compiler = compilerOf(dialect);
  const text = (statement: RawBuilder<unknown>): string => {
    const compiled = statement.compile(compiler);
    // DDL takes no bound parameters: every value in it is a literal.
    if (compiled.parameters.length > 0) throw new Error(`tableStoreTriggersSql: a parameter in ${compiled.sql}`);
    return compiled.sql;
  };
  const statements = [text(createGenerationsTable(dialect))];
  for (const table of servedTables(options)) {
    statements.push(...(dialect.name === "postgres" ? postgresTriggers(options, table) : sqliteTriggers(options, table)).map(text));
  }
  return statements;
}

/**
 * The upsert incrementing the generation of the organization of `row` (`new` or `old`): the
 * organization column's value as text, as requests name it, or the fixed organization.
 */
function bump(
  options: TableStoreTriggersOptions,
  table: ServedTable,
  row: "new" | "old",
  dialect: Pick<SqlDialect, "name">,
): RawBuilder<unknown> {
  const { organization } = options;
  const orgId = "column" in organization ? sql`cast(${sql.raw(row)}.${sql.id(organization.column)} as text)` : sql.lit(organization.fixed);
  return sql`insert into ${sql.table(TABLE_GENERATIONS)} (org_id, resource_type, slot, generation)
    values (${orgId}, ${sql.lit(table.resourceType)}, ${slotOf(dialect)}, 1)
    on conflict (org_id, resource_type, slot) do update set generation = ${sql.table(TABLE_GENERATIONS)}.generation + 1`;
}

/** The columns whose change moves a row within or between lists: its organization's and its id. */
function movingColumns(options: TableStoreTriggersOptions, table: ServedTable): readonly string[] {
  const { organization } = options;
  return "column" in organization ? [organization.column, table.mapping.id.column] : [table.mapping.id.column];
}

function sqliteTriggers(options: TableStoreTriggersOptions, table: ServedTable): readonly RawBuilder<unknown>[] {
  const dialect = { name: "sqlite" } as const;
  const on = sql.table(table.mapping.table);
  const [inserted, deleted, updated] = triggerNames(dialect, table.mapping.table).map((name) => sql.id(name));
  const moving = movingColumns(options, table);
  const moved = sql.join(
    moving.map((column) => sql`old.${sql.id(column)} is not new.${sql.id(column)}`),
    sql` or `,
  );
  return [
    sql`drop trigger if exists ${inserted}`,
    sql`create trigger ${inserted} after insert on ${on} for each row begin ${bump(options, table, "new", dialect)}; end`,
    sql`drop trigger if exists ${deleted}`,
    sql`create trigger ${deleted} after delete on ${on} for each row begin ${bump(options, table, "old", dialect)}; end`,
    sql`drop trigger if exists ${updated}`,
    // An update that keeps the organization and id (any column named in SET fires `update of`) changes no list.
    sql`create trigger ${updated} after update of ${sql.join(moving.map((column) => sql.id(column)))} on ${on} for each row when ${moved} begin ${bump(
      options,
      table,
      "old",
      dialect,
    )}; ${bump(options, table, "new", dialect)}; end`,
  ];
}

function postgresTriggers(options: TableStoreTriggersOptions, table: ServedTable): readonly RawBuilder<unknown>[] {
  const dialect = { name: "postgres" } as const;
  const { schema } = tableParts(table.mapping.table);
  const [name = ""] = triggerNames(dialect, table.mapping.table);
  const trigger = sql.id(name);
  // The function beside the table, named as its trigger: one per table, since each names its own columns.
  const fn = schema === undefined ? sql.id(name) : sql.id(schema, name);
  const moving = movingColumns(options, table);
  const unmoved = sql.join(
    moving.map((column) => sql`old.${sql.id(column)} is not distinct from new.${sql.id(column)}`),
    sql` and `,
  );
  return [
    sql`create or replace function ${fn}() returns trigger language plpgsql as $scimkit$
begin
  if tg_op = 'UPDATE' and ${unmoved} then
    return null;
  end if;
  if tg_op <> 'INSERT' then
    ${bump(options, table, "old", dialect)};
  end if;
  if tg_op <> 'DELETE' then
    ${bump(options, table, "new", dialect)};
  end if;
  return null;
end
$scimkit$`,
    sql`drop trigger if exists ${trigger} on ${sql.table(table.mapping.table)}`,
    sql`create trigger ${trigger} after insert or delete or update of ${sql.join(moving.map((column) => sql.id(column)))} on ${sql.table(
      table.mapping.table,
    )} for each row execute function ${fn}()`,
  ];
}

/**
 * The resource types whose tables have every trigger `tableStoreTriggersSql` installs, found by
 * name on the table the mapping names (PostgreSQL: in the schema the search path gives it, and
 * enabled). The store reads this once, at start: a type without them pages by OFFSET.
 */
export async function generationTriggerTypes(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  options: TableStoreTriggersOptions,
): Promise<ReadonlySet<string>> {
  const types = new Set<string>();
  if (dialect.name !== "sqlite" && dialect.name !== "postgres") return types;
  const compiler = compilerOf(dialect);
  for (const table of servedTables(options)) {
    const names = triggerNames(dialect, table.mapping.table);
    const found =
      dialect.name === "postgres"
        ? await sql<{ readonly name: string }>`select tgname as name from pg_trigger
            where tgrelid = to_regclass(${sql.table(table.mapping.table).compile(compiler).sql}) and tgname in (${sql.join(names)}) and tgenabled <> 'D'`.execute(
            db,
          )
        : await sql<{ readonly name: string }>`select name from sqlite_master
            where type = 'trigger' and lower(tbl_name) = lower(${table.mapping.table}) and name in (${sql.join(names)})`.execute(db);
    if (found.rows.length === names.length) types.add(table.resourceType);
  }
  return types;
}
