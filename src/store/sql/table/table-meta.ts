/**
 * Where one table keeps each resource's version and times (RFC 7643 §3.1 `meta`, RFC 7644 §3.14
 * ETags): in the application's own columns where the mapping names them (`timestamps`,
 * `version`), else in the store's side table `scimkit_table_meta`, joined to the row as `tm`.
 * Reads, filters and sorts see the same expressions, so a row's `meta.lastModified` compares as
 * the instant its response shows.
 */
import { sql, type Expression } from "kysely";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { ColumnValue, TableMapping } from "./table-mapping.js";

/** The alias queries give `scimkit_table_meta`, joined to the application's row. */
export const META_ALIAS = "tm";

/** The values a write gives the resource's version and times. */
export interface MetaWrite {
  readonly version: number;
  /** Only on create: an update keeps the created time. */
  readonly created?: string;
  readonly lastModified: string;
}

/** One table's version and times: SQL to read them, and the column values a write sets. */
export interface TableMeta {
  /** Whether one of them is in `scimkit_table_meta`, so the row is read joined to it. */
  readonly side: boolean;
  /** The version number, 0 when none was ever written, of the row aliased `resource`. */
  version(resource: string): Expression<unknown>;
  /** `meta.created` as ISO 8601 UTC text with milliseconds (`toISOString()`'s form), or NULL. */
  created(resource: string): Expression<unknown>;
  /** `meta.lastModified`, as `created`. */
  lastModified(resource: string): Expression<unknown>;
  /** The application's columns a write sets: those of `write` the mapping keeps in the row. */
  rowValues(write: MetaWrite): Record<string, ColumnValue>;
  /** The columns of the row a write bumps without knowing the version (`version = version + 1`), with their SQL. */
  bump(resource: string, lastModified: string): readonly (readonly [string, Expression<unknown>])[];
}

/**
 * A time column read as canonical ISO text, whatever form it holds: SQLite's date functions read
 * `current_timestamp`'s text and ISO 8601 alike; PostgreSQL formats the instant in UTC.
 */
function isoText(dialect: SqlDialect, column: Expression<unknown>): Expression<unknown> {
  if (dialect.name === "sqlite") return sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${column})`;
  return sql`to_char(cast(${column} as timestamptz) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** The meta of `mapping`'s table on `dialect`. */
export function tableMeta(mapping: TableMapping, dialect: SqlDialect): TableMeta {
  const createdColumn = mapping.timestamps?.created;
  const modifiedColumn = mapping.timestamps?.lastModified;
  const versionColumn = mapping.version?.column;
  const side = sql.ref;
  const own = (resource: string, column: string): Expression<unknown> => sql.ref(`${resource}.${column}`);
  return {
    side: createdColumn === undefined || modifiedColumn === undefined || versionColumn === undefined,
    version: (resource) => sql`coalesce(${versionColumn === undefined ? side(`${META_ALIAS}.version`) : own(resource, versionColumn)}, 0)`,
    created: (resource) => (createdColumn === undefined ? side(`${META_ALIAS}.created`) : isoText(dialect, own(resource, createdColumn))),
    lastModified: (resource) =>
      modifiedColumn === undefined ? side(`${META_ALIAS}.last_modified`) : isoText(dialect, own(resource, modifiedColumn)),
    rowValues(write) {
      const values: Record<string, ColumnValue> = {};
      if (versionColumn !== undefined) values[versionColumn] = write.version;
      if (createdColumn !== undefined && write.created !== undefined) values[createdColumn] = write.created;
      if (modifiedColumn !== undefined) values[modifiedColumn] = write.lastModified;
      return values;
    },
    bump(resource, lastModified) {
      const set: (readonly [string, Expression<unknown>])[] = [];
      if (versionColumn !== undefined) set.push([versionColumn, sql`coalesce(${own(resource, versionColumn)}, 0) + 1`]);
      if (modifiedColumn !== undefined) set.push([modifiedColumn, sql.val(lastModified)]);
      return set;
    },
  };
}
