/**
 * How the application's own tables hold SCIM resources: the declarative mapping `tableStore` takes
 * (architecture §7.6, issue 16). Every name here is the application's: tables, columns, and the
 * SCIM paths it maps (as in a filter: `"name.givenName"`, or URN-qualified for an extension).
 */
import type { Kysely } from "kysely";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import type { SqlStoreDatabase } from "../sql-tables.js";

/** A value as it is bound to, or read from, a column. */
export type ColumnValue = string | number | bigint | boolean | Date | Uint8Array | null;

/** A SCIM value as canonical attributes hold it (a string, a number, a boolean). */
export type ScimValue = string | number | boolean;

/**
 * One SCIM attribute in one column, with conversions where the types differ.
 *
 * A converted column answers only `eq`, `ne` and `pr` in filters (the filter's value goes through
 * `toColumn` and is compared with `=`); ordering, substring and sorting need the column to hold the
 * SCIM value as is, so they are refused with 400 `invalidFilter` naming the attribute.
 */
export interface ColumnMapping {
  /** The column's name in the table. */
  readonly column: string;
  /**
   * The SCIM type of the attribute, for reading the column back (a store sees no schema): a
   * SQLite boolean is an integer, a PostgreSQL `bigint` arrives as text. Default `"string"`.
   */
  readonly type?: "string" | "number" | "boolean";
  /**
   * The column value for a SCIM value. Must be one-to-one, so that `eq` on the converted value
   * matches exactly the rows whose `fromColumn` gives the filter's value.
   *
   * @example (active) => (active ? 1 : 0)
   */
  readonly toColumn?: (value: ScimValue) => ColumnValue;
  /**
   * The SCIM value of a non-NULL column value (NULL always means "no value"); `undefined` for none.
   *
   * @example (isActive) => isActive === 1
   */
  readonly fromColumn?: (value: ColumnValue) => ScimValue | undefined;
}

/**
 * How the table makes ids; they are always rendered as strings.
 * - `"integer"`: the database assigns them (an autoincrement or identity column); the store returns
 *   the assigned id from `create`, in place of the one the core proposed.
 * - `"uuid"`: a UUID column; the store keeps the core's id, a UUID v7.
 * - `"text"`: a text column; the store keeps the core's id.
 */
export type IdKind = "integer" | "uuid" | "text";

/** The primary key column of a table. */
export interface IdMapping {
  /** The column's name. */
  readonly column: string;
  /** How ids are made; see `IdKind`. */
  readonly kind: IdKind;
}

/**
 * Which organization a row belongs to: a column holding the organization id of the SCIM URL
 * (`/Organizations/:orgId/v2`), or one organization for an application that has a single tenant —
 * every request for another organization then finds nothing and may write nothing.
 */
export type OrganizationMapping = { readonly column: string } | { readonly fixed: string };

/**
 * Work the mapping cannot express, run in the write's own transaction (or beside each read), so it
 * commits or rolls back with the write.
 */
export interface TableHooks {
  /**
   * Adjusts the row about to be inserted or updated: `row` holds the mapped columns by name (the
   * organization, id and JSON columns included where they are written). Return the row to write.
   */
  toRow?(
    row: Readonly<Record<string, ColumnValue>>,
    resource: ScimObject,
    trx: Kysely<SqlStoreDatabase>,
  ): Promise<Record<string, ColumnValue>> | Record<string, ColumnValue>;
  /** Adjusts the attributes read from `row` (every column of the table, by name). */
  fromRow?(resource: ScimObject, row: Readonly<Record<string, unknown>>): ScimObject;
}

/** One resource type in one table. */
export interface TableMapping {
  /** The application's table. */
  readonly table: string;
  /** Its primary key. */
  readonly id: IdMapping;
  /**
   * SCIM path → column (a name, or a `ColumnMapping` for conversions). A path is a single-valued
   * attribute or a sub-attribute of a single-valued complex one, as written in a filter; extension
   * attributes are URN-qualified. `id`, `meta` and `members` are not mapped here.
   *
   * @example { userName: "email", "name.givenName": "first_name", active: "is_active" }
   */
  readonly columns: Readonly<Record<string, string | ColumnMapping>>;
  /**
   * A JSON column (TEXT in SQLite, JSONB in PostgreSQL) for every attribute without a column;
   * filters and sorts on those read it. Absent: unmapped attributes are dropped on write (spec §1,
   * §2.3: not synchronized), and a filter or sort naming one is refused with 400 `invalidFilter`.
   */
  readonly rest?: { readonly column: string };
  /**
   * Multi-valued complex attributes kept in child tables, by attribute name (a core attribute):
   * `{ emails: { table: "user_emails", owner: "user_id", position: "position", columns: {…} } }`.
   */
  readonly children?: Readonly<Record<string, ChildTableMapping>>;
  /** Work the mapping cannot express; see `TableHooks`. */
  readonly hooks?: TableHooks;
  /**
   * The application's columns holding the resource's times (`meta.created`, `meta.lastModified`).
   * A time absent here is kept in the store's side table `scimkit_table_meta`.
   *
   * @example { created: "created_at", lastModified: "updated_at" }
   */
  readonly timestamps?: TimestampColumns;
  /**
   * The application's version counter (`meta.version`, the ETag of RFC 7644 §3.14). Absent: the
   * version is kept in `scimkit_table_meta`.
   *
   * @example { column: "lock_version" }
   */
  readonly version?: VersionColumn;
}

/**
 * Columns holding a resource's times (RFC 7643 §3.1). On PostgreSQL a `timestamptz` column; on
 * SQLite a text column in a form SQLite's date functions read (`current_timestamp`'s
 * `YYYY-MM-DD HH:MM:SS` in UTC, or ISO 8601). The store writes the instant of each write as ISO
 * 8601 UTC text with milliseconds and reads a row's times in that form, so rows the application
 * wrote itself filter and sort with the store's. A NULL time reads as the epoch.
 */
export interface TimestampColumns {
  /** Set once, by the create (a row the application inserted keeps its own). */
  readonly created?: string;
  /** Set by every write of the store that changes the resource; the application's own writes may set it too. */
  readonly lastModified?: string;
}

/**
 * An integer column counting the resource's writes: the store sets 1 on create and adds 1 on
 * every write that changes the resource (a PATCH changing nothing leaves it), under the row's
 * lock. NULL counts as 0. If the application's own writes add 1 too, a client's ETag goes stale
 * on them as well — the precondition then fails with 412 rather than overwriting them.
 */
export interface VersionColumn {
  /** The column's name. */
  readonly column: string;
}

/** The join table of group members: one row per (group, member user). */
export interface MemberTableMapping {
  /** The join table's name. */
  readonly table: string;
  /** The column holding the group's id. */
  readonly group: string;
  /** The column holding the member user's id (the users table's id kind). */
  readonly member: string;
}

/**
 * Groups in a table, with their members in a join table. Members are users: a group id given as
 * a member is unknown to the join table, so it is ignored or rejected as `unknownMembers` says.
 */
export interface GroupTableMapping extends TableMapping {
  /** Where the members are. */
  readonly members: MemberTableMapping;
}

/**
 * A multi-valued complex attribute (`emails`, `phoneNumbers`) in a table of its own: one row per
 * element. A write replaces the resource's rows (a user has a handful of e-mails); filters test
 * them with an `exists` over the owner's index, sorts read the primary (else the first) element.
 */
export interface ChildTableMapping {
  /** The child table's name. */
  readonly table: string;
  /** The column holding the owning resource's id (the parent table's id kind); index it. */
  readonly owner: string;
  /** An integer column keeping the elements' order (RFC 7643 §2.4: a client's order is kept). */
  readonly position: string;
  /**
   * Sub-attribute name → column, as in `TableMapping.columns`: `{ value: "address", type: "kind",
   * primary: { column: "is_primary", type: "boolean" } }`. Sub-attributes without a column are dropped.
   */
  readonly columns: Readonly<Record<string, string | ColumnMapping>>;
}
