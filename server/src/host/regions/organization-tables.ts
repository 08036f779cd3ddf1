/**
 * An organization's rows, table by table, for moving it to another region (issue 30, point 4).
 * Every SCIM and analytics table leads its key with the organization, or reaches it through a
 * row that does (report rows, through their operation), so an organization's data is the rows
 * these tables hold for it. A move copies rows as they are — ids, `externalId`, versions (the
 * ETags), memberships, token hashes, audit entries, undelivered events — never resources through
 * the SCIM layer, which would assign new ids and versions.
 *
 * What is not here stays behind on purpose: rate buckets (a new region starts with a full bucket,
 * as a restart does), the unauthenticated sample (outsiders' requests, bound to no organization),
 * admin users and invitation offers (they span organizations; a move drops the moved
 * organization from theirs, as a delete does).
 */
import { createHash } from "node:crypto";
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { ScimObject } from "scimkit/core";
import type { SqlDialect, SqlStoreDatabase } from "scimkit/sql";

/** Which engine holds the tables: how a table's columns are listed differs. */
export type SqlEngine = "sqlite" | "postgres";

/** A SQL store's connection as a move needs it. */
export interface OrganizationDatabase {
  readonly db: Kysely<SqlStoreDatabase>;
  readonly dialect: SqlDialect;
  readonly engine: SqlEngine;
}

/** One table of an organization's data. */
export interface OrganizationTable {
  readonly name: string;
  /** The primary key's columns, in order: pages are read in this order. */
  readonly key: readonly string[];
  /** How the organization's rows are found: by `org_id`, by `id` (its own row), or through their operation. */
  readonly scope: "org_id" | "id" | "operation";
  /** Columns holding a JSON document (jsonb on PostgreSQL, text on SQLite). */
  readonly json?: readonly string[];
  /**
   * Columns that background work changes while the organization's writes are frozen — a token's
   * last use by a read, an event's lease and delivery — left out of the digest. The copy that the
   * switch makes last carries their final values.
   */
  readonly volatile?: readonly string[];
  /** Rows that keep coming while frozen (reads are logged): copied again at the switch, not digested. */
  readonly appendOnly?: true;
  /**
   * Copied only at the switch, not digested: the event receivers, so the target's delivery loop
   * has nobody to send the arriving organization's events to before it is home (and, after a
   * rollback, never had): each event is delivered by one region.
   */
  readonly atSwitch?: true;
}

/** The tables in the order a copy writes them: a row's foreign keys point to rows written before it. */
export const ORGANIZATION_TABLES: readonly OrganizationTable[] = [
  { name: "scimkit_organizations", key: ["id"], scope: "id" },
  { name: "scimkit_resources", key: ["org_id", "id"], scope: "org_id", json: ["attributes"] },
  { name: "scimkit_unique_keys", key: ["org_id", "resource_type", "attribute", "value"], scope: "org_id" },
  { name: "scimkit_members", key: ["org_id", "group_id", "member_id"], scope: "org_id" },
  { name: "scimkit_list_generations", key: ["org_id", "resource_type", "slot"], scope: "org_id" },
  { name: "scimkit_tokens", key: ["org_id", "id"], scope: "org_id", volatile: ["last_used_at"] },
  { name: "scimkit_audit", key: ["org_id", "id"], scope: "org_id" },
  { name: "scimkit_setup_links", key: ["org_id", "id"], scope: "org_id" },
  { name: "scimkit_event_sequences", key: ["org_id"], scope: "org_id" },
  { name: "scimkit_events", key: ["org_id", "sequence"], scope: "org_id", json: ["data"], volatile: ["pending", "lease_until_ms"] },
  {
    name: "scimkit_event_receivers",
    key: ["org_id", "id"],
    scope: "org_id",
    atSwitch: true,
  },
  { name: "scimkit_event_keys", key: ["org_id"], scope: "org_id" },
  { name: "scimkit_campaigns", key: ["id"], scope: "org_id" },
  { name: "scimkit_enrolments", key: ["campaign_id", "user_id"], scope: "org_id" },
  { name: "scimkit_simulations", key: ["id"], scope: "org_id" },
  { name: "scimkit_simulation_recipients", key: ["simulation_id", "user_id"], scope: "org_id" },
  { name: "scimkit_feedback", key: ["id"], scope: "org_id" },
  { name: "scimkit_operations", key: ["id"], scope: "org_id", volatile: ["heartbeat_at", "owner_id"] },
  { name: "scimkit_report_rows", key: ["operation_id", "seq"], scope: "operation" },
  { name: "scimkit_request_log", key: ["org_id", "seq"], scope: "org_id", appendOnly: true },
];

/** A table of the list by name; undefined for any other name (what a peer may name is this list). */
export function organizationTable(name: string): OrganizationTable | undefined {
  return ORGANIZATION_TABLES.find((table) => table.name === name);
}

/** A row as read: column name to value, JSON columns as documents. */
export type OrganizationRow = Readonly<Record<string, unknown>>;

function scopeOf(table: OrganizationTable, orgId: string): RawBuilder<unknown> {
  if (table.scope === "id") return sql`${sql.ref("id")} = ${orgId}`;
  if (table.scope === "operation") {
    return sql`${sql.ref("operation_id")} in (select ${sql.ref("id")} from ${sql.table("scimkit_operations")} where ${sql.ref("org_id")} = ${orgId})`;
  }
  return sql`${sql.ref("org_id")} = ${orgId}`;
}

/**
 * Up to `limit` of `orgId`'s rows of `table` after the key `after` (undefined: from the first),
 * in key order, JSON columns parsed. Keyset paging: each page is an index range, whatever the
 * table's size.
 */
export async function readOrganizationRows(
  database: OrganizationDatabase,
  table: OrganizationTable,
  orgId: string,
  after: readonly unknown[] | undefined,
  limit: number,
): Promise<OrganizationRow[]> {
  const keys = sql.join(table.key.map((column) => sql.ref(column)));
  const columns = sql.join([...(await tableColumns(database, table.name))].sort().map((column) => sql.ref(column)));
  const from = after === undefined ? sql`` : sql` and (${keys}) > (${sql.join(after.map((value) => sql`${value}`))})`;
  const result = await sql<
    Record<string, unknown>
  >`select ${columns} from ${sql.table(table.name)} where ${scopeOf(table, orgId)}${from} order by ${keys} limit ${limit}`.execute(
    database.db,
  );
  return result.rows.map((row) => {
    if (!table.json) return row;
    const parsed: Record<string, unknown> = { ...row };
    for (const column of table.json)
      if (parsed[column] !== null && parsed[column] !== undefined) parsed[column] = database.dialect.fromJson(parsed[column]);
    return parsed;
  });
}

/** The key of `row` in `table`, for the next page. */
export function keyOf(table: OrganizationTable, row: OrganizationRow): unknown[] {
  return table.key.map((column) => row[column]);
}

/** Every page of `orgId`'s rows of `table`, `pageRows` at a time. */
export async function* organizationPages(
  database: OrganizationDatabase,
  table: OrganizationTable,
  orgId: string,
  pageRows: number,
): AsyncGenerator<OrganizationRow[]> {
  let after: unknown[] | undefined;
  for (;;) {
    const rows = await readOrganizationRows(database, table, orgId, after, pageRows);
    if (rows.length > 0) yield rows;
    if (rows.length < pageRows) return;
    after = keyOf(table, rows[rows.length - 1] as OrganizationRow);
  }
}

const knownColumns = new WeakMap<OrganizationDatabase, Map<string, Promise<ReadonlySet<string>>>>();

async function readColumns(database: OrganizationDatabase, table: string): Promise<ReadonlySet<string>> {
  const result =
    database.engine === "sqlite"
      ? await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(database.db)
      : await sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_name = ${table} and table_schema = current_schema() and is_generated = 'NEVER'`.execute(database.db);
  return new Set(result.rows.map((row) => row.name));
}

/**
 * The columns of `table` a row is written with in this database: a copy reads and a peer's row
 * may name only these. Generated columns (PostgreSQL's e-mail search text) are left out: the
 * database derives them, and refuses a value for them. Read once per database.
 */
export function tableColumns(database: OrganizationDatabase, table: string): Promise<ReadonlySet<string>> {
  let tables = knownColumns.get(database);
  if (tables === undefined) {
    tables = new Map();
    knownColumns.set(database, tables);
  }
  const cached = tables.get(table);
  if (cached !== undefined) return cached;
  const known = readColumns(database, table);
  tables.set(table, known);
  // A failed read is asked again next time.
  known.catch(() => tables.delete(table));
  return known;
}

/**
 * Writes `rows` of `table` as they are, replacing a row of the same key: a page copied twice (a
 * move resumed after a kill) leaves one row, with the source's last values. Call it inside a
 * transaction; the caller has checked each row (`checkOrganizationRows`).
 */
export async function upsertOrganizationRows(
  trx: Kysely<SqlStoreDatabase>,
  database: OrganizationDatabase,
  table: OrganizationTable,
  rows: readonly OrganizationRow[],
): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const columns = Object.keys(first).sort();
  const json = new Set(table.json ?? []);
  const key = new Set(table.key);
  const values = rows.map(
    (row) =>
      sql`(${sql.join(
        columns.map((column) => {
          const value = row[column] ?? null;
          return sql`${json.has(column) && value !== null ? database.dialect.toJson(value as ScimObject) : value}`;
        }),
      )})`,
  );
  const updated = columns.filter((column) => !key.has(column));
  const onConflict =
    updated.length === 0
      ? sql`do nothing`
      : sql`do update set ${sql.join(updated.map((column) => sql`${sql.ref(column)} = excluded.${sql.ref(column)}`))}`;
  await sql`insert into ${sql.table(table.name)} (${sql.join(columns.map((column) => sql.ref(column)))}) values ${sql.join(values)} on conflict (${sql.join(table.key.map((column) => sql.ref(column)))}) ${onConflict}`.execute(
    trx,
  );
}

/** One table's part of a digest. */
export interface TableDigest {
  readonly rows: number;
  /** SHA-256, hex, of the rows in key order, each as canonical JSON without its volatile columns. */
  readonly sha256: string;
}

/** A value as the digest sees it: the same in SQLite and PostgreSQL (numbers as text, objects by sorted key). */
function canonical(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((name) => [name, canonical((value as Record<string, unknown>)[name])]),
    );
  }
  return String(value);
}

/**
 * Per table, how many rows `orgId` has and their digest: what source and target compare before
 * the switch. Append-only tables (reads keep adding to them) and those copied at the switch are left out.
 */
export async function digestOrganization(database: OrganizationDatabase, orgId: string): Promise<Record<string, TableDigest>> {
  const digests: Record<string, TableDigest> = {};
  for (const table of ORGANIZATION_TABLES) {
    if (table.appendOnly || table.atSwitch) continue;
    const hash = createHash("sha256");
    const left = new Set(table.volatile ?? []);
    let rows = 0;
    for await (const page of organizationPages(database, table, orgId, 1000)) {
      for (const row of page) {
        rows += 1;
        const kept = Object.keys(row)
          .filter((column) => !left.has(column))
          .sort()
          .map((column) => [column, canonical(row[column])]);
        hash.update(`${JSON.stringify(kept)}\n`);
      }
    }
    digests[table.name] = { rows, sha256: hash.digest("hex") };
  }
  return digests;
}

/**
 * Deletes every row of `orgId` in the tables of the list, children first, and its place in admin
 * users' and invitation offers' organizations, in one transaction: the source's copy after the
 * switch, or the target's before a copy starts again or a move is rolled back. The organization's
 * SQLite e-mail search rows go with it (`SqlDialect.indexResources`).
 */
export async function deleteOrganizationTables(database: OrganizationDatabase, orgId: string): Promise<void> {
  const sqlite = database.engine === "sqlite";
  await database.dialect.writeTransaction(database.db, async (trx) => {
    await database.dialect.indexResources?.(trx, { kind: "deleteOrganization", orgId });
    for (const table of ["scimkit_admin_user_organizations", "scimkit_invitation_offer_organizations"]) {
      await sql`delete from ${sql.table(table)} where ${sql.ref("org_id")} = ${orgId}`.execute(trx);
    }
    await sql`delete from ${sql.table("scimkit_rate_buckets")} where ${sql.ref("key")} = ${`scim:${orgId}`}`.execute(trx);
    for (const table of [...ORGANIZATION_TABLES].reverse()) {
      await sql`delete from ${sql.table(table.name)} where ${scopeOf(table, orgId)}`.execute(trx);
    }
  });
  if (sqlite) {
    // The store's SQLite writer zeroes what a delete removes (secure_delete), but the older copies
    // of those pages stay in the main file until a checkpoint writes the zeroed ones over them,
    // and in the write-ahead log: both now, on the writer (a borrowing that starts with a write
    // goes there). Busy (a reader on an older snapshot) leaves it to the next checkpoint.
    await database.db.connection().execute(async (connection) => {
      await sql`delete from ${sql.table("scimkit_rate_buckets")} where ${sql.ref("key")} = ${`scim:${orgId}`}`.execute(connection);
      await sql`pragma wal_checkpoint(truncate)`.execute(connection);
    });
  }
}
