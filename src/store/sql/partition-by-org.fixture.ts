/**
 * A schema whose organization tables are hash-partitioned by `org_id` (docs/scaling.md), built
 * from the schema the migrations made: each table with an `org_id` column is recreated as
 * `PARTITION BY HASH (org_id)` with the same columns (generated ones included), and its own
 * constraints, indexes and foreign keys are added back from PostgreSQL's own definitions
 * (`pg_get_constraintdef`, `pg_get_indexdef`), under their names. PostgreSQL requires the
 * partition key in every unique constraint and unique index of a partitioned table, as a
 * distributed PostgreSQL (Citus) requires its distribution column: a table with one that lacks
 * `org_id` is refused by PostgreSQL itself, stays as it was, and is reported with the
 * constraints to blame — a finding of the scaling document, never hidden.
 */
import type pg from "pg";

/** A table PostgreSQL would not partition by `org_id`, and why. */
export interface PartitionRefusal {
  /** The table, left as the migrations made it. */
  readonly table: string;
  /** Its unique constraints and unique indexes whose columns do not include `org_id`. */
  readonly withoutOrgId: readonly string[];
  /** PostgreSQL's error when asked to partition it. */
  readonly error: string;
}

/** What `partitionByOrg` did. */
export interface PartitionedSchema {
  /** The tables now partitioned by hash of `org_id`, by name. */
  readonly partitioned: readonly string[];
  /** The tables with an `org_id` column PostgreSQL refused to partition, by name. */
  readonly refused: readonly PartitionRefusal[];
}

/** One partition of a partitioned table, as the catalog describes it. */
export interface PartitionInfo {
  /** The partitioned (parent) table. */
  readonly table: string;
  /** `h` for hash (`pg_partitioned_table.partstrat`). */
  readonly strategy: string;
  /** The partition key's columns. */
  readonly key: readonly string[];
  /** The partitions' names (`pg_inherits`), sorted. */
  readonly partitions: readonly string[];
}

interface Definition {
  readonly name: string;
  readonly definition: string;
}

interface IncomingKey extends Definition {
  readonly table: string;
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

async function tablesWithOrgId(client: pg.PoolClient, schema: string): Promise<string[]> {
  const result = await client.query<{ table: string }>(
    `select c.relname as table from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relkind = 'r'
        and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'org_id' and not a.attisdropped)
      order by c.relname`,
    [schema],
  );
  return result.rows.map((row) => row.table);
}

/** Unique constraints and unique indexes of `table` whose key columns do not include `org_id`. */
async function uniquesWithoutOrgId(client: pg.PoolClient, oid: number): Promise<string[]> {
  const result = await client.query<{ name: string }>(
    `select i.indexrelid::regclass::text as name from pg_index i
      where i.indrelid = $1 and i.indisunique
        and not exists (select 1 from pg_attribute a where a.attrelid = i.indrelid and a.attname = 'org_id'
          and a.attnum = any (i.indkey::int2[]))
      order by 1`,
    [oid],
  );
  return result.rows.map((row) => row.name);
}

/** Recreates `table` (empty) partitioned by hash of `org_id`, inside the caller's transaction. */
async function partitionTable(client: pg.PoolClient, schema: string, table: string, partitions: number): Promise<void> {
  const qualified = `${quote(schema)}.${quote(table)}`;
  const oid = Number((await client.query<{ oid: string }>("select $1::regclass::oid as oid", [qualified])).rows[0]?.oid);
  const rows = await client.query<{ found: boolean }>(`select exists (select 1 from ${qualified}) as found`);
  // Rows would have to be copied around generated columns; the test partitions a fresh schema.
  if (rows.rows[0]?.found) throw new Error(`partitionByOrg: ${table} is not empty`);
  // Keys and unique constraints first (indexes and foreign keys may depend on them), checks come with LIKE.
  const keys = await client.query<Definition>(
    `select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
      where conrelid = $1 and contype in ('p', 'u', 'x') order by contype, conname`,
    [oid],
  );
  const indexes = await client.query<Definition>(
    `select c.relname as name, pg_get_indexdef(i.indexrelid) as definition from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = $1 and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.conrelid = i.indrelid)
      order by c.relname`,
    [oid],
  );
  const outgoing = await client.query<Definition>(
    `select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
      where conrelid = $1 and contype = 'f' and conparentid = 0 order by conname`,
    [oid],
  );
  // A partitioned table's foreign key is one constraint, cloned on each partition (`conparentid`).
  const incoming = await client.query<IncomingKey>(
    `select conrelid::regclass::text as table, conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
      where confrelid = $1 and conrelid <> $1 and contype = 'f' and conparentid = 0 order by conname`,
    [oid],
  );
  const staged = `${table}__partitioned`;
  await client.query(
    `create table ${quote(schema)}.${quote(staged)} (like ${qualified} including defaults including generated including constraints
      including storage including comments) partition by hash (org_id)`,
  );
  for (let remainder = 0; remainder < partitions; remainder++) {
    await client.query(
      `create table ${quote(schema)}.${quote(`${table}_p${remainder}`)} partition of ${quote(schema)}.${quote(staged)}
        for values with (modulus ${partitions}, remainder ${remainder})`,
    );
  }
  for (const key of incoming.rows) await client.query(`alter table ${key.table} drop constraint ${quote(key.name)}`);
  await client.query(`drop table ${qualified}`);
  await client.query(`alter table ${quote(schema)}.${quote(staged)} rename to ${quote(table)}`);
  for (const key of keys.rows) await client.query(`alter table ${qualified} add constraint ${quote(key.name)} ${key.definition}`);
  // `pg_get_indexdef` names the table, which now is the partitioned one.
  for (const index of indexes.rows) await client.query(index.definition);
  for (const key of outgoing.rows) await client.query(`alter table ${qualified} add constraint ${quote(key.name)} ${key.definition}`);
  for (const key of incoming.rows) await client.query(`alter table ${key.table} add constraint ${quote(key.name)} ${key.definition}`);
}

/**
 * Recreates every empty table of `schema` that has an `org_id` column as `PARTITION BY HASH
 * (org_id)` with `partitions` partitions (`<table>_p0` …), keeping its columns, constraints,
 * indexes and foreign keys (both ways) by name; one transaction, one savepoint per table, so a
 * table PostgreSQL refuses stays exactly as it was and the others are still partitioned.
 */
export async function partitionByOrg(pool: pg.Pool, schema: string, partitions: number): Promise<PartitionedSchema> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const partitioned: string[] = [];
    const refused: PartitionRefusal[] = [];
    for (const table of await tablesWithOrgId(client, schema)) {
      const oid = Number(
        (await client.query<{ oid: string }>("select $1::regclass::oid as oid", [`${quote(schema)}.${quote(table)}`])).rows[0]?.oid,
      );
      const withoutOrgId = await uniquesWithoutOrgId(client, oid);
      await client.query("savepoint partition_table");
      try {
        await partitionTable(client, schema, table, partitions);
        await client.query("release savepoint partition_table");
        partitioned.push(table);
      } catch (error) {
        await client.query("rollback to savepoint partition_table");
        refused.push({ table, withoutOrgId, error: error instanceof Error ? error.message : String(error) });
      }
    }
    await client.query("commit");
    return { partitioned, refused };
  } catch (error) {
    await client.query("rollback");
    throw error;
  } finally {
    client.release();
  }
}

/** The partitioned tables of `schema` with their strategy, key and partitions (`pg_partitioned_table`, `pg_inherits`). */
export async function partitionsOf(pool: pg.Pool, schema: string): Promise<PartitionInfo[]> {
  const result = await pool.query<{ table: string; strategy: string; key: string[]; partitions: string[] }>(
    `select c.relname as table, p.partstrat as strategy,
        array(select a.attname::text from unnest(p.partattrs::int2[]) with ordinality k(attnum, n)
          join pg_attribute a on a.attrelid = p.partrelid and a.attnum = k.attnum order by k.n) as key,
        array(select ch.relname::text from pg_inherits h join pg_class ch on ch.oid = h.inhrelid
          where h.inhparent = p.partrelid order by ch.relname) as partitions
      from pg_partitioned_table p join pg_class c on c.oid = p.partrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 order by c.relname`,
    [schema],
  );
  return result.rows;
}

/** How many rows of `table` each of its partitions holds, by partition name (partitions without rows absent). */
export async function rowsPerPartition(pool: pg.Pool, schema: string, table: string): Promise<Record<string, number>> {
  const result = await pool.query<{ partition: string; rows: string }>(
    `select c.relname as partition, count(*) as rows from ${quote(schema)}.${quote(table)} t join pg_class c on c.oid = t.tableoid
      group by c.relname order by c.relname`,
  );
  return Object.fromEntries(result.rows.map((row) => [row.partition, Number(row.rows)]));
}

/** A schema's tables as the catalog describes them, partitions left out, one line per column, constraint and index. */
export interface SchemaShape {
  /** `table.column type [not null] [generated …] [collate …]`. */
  readonly columns: readonly string[];
  /**
   * `table.name definition` (`pg_get_constraintdef`), NOT NULL aside (PostgreSQL 15 keeps it on the
   * column), and without the clones a foreign key to a partitioned table gets per partition (`conparentid`).
   */
  readonly constraints: readonly string[];
  /** `name definition` (`pg_get_indexdef`, `ON ONLY` read as `ON`: how a partitioned table's index is printed). */
  readonly indexes: readonly string[];
}

/** The shape of `schema`'s tables, so a partitioned schema can be compared with the migrations' own. */
export async function schemaShape(pool: pg.Pool, schema: string): Promise<SchemaShape> {
  const tables = `select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = $1 and c.relkind in ('r', 'p') and not c.relispartition`;
  const columns = await pool.query<{ line: string }>(
    `select format('%s.%s %s%s%s%s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
        case when a.attnotnull then ' not null' else '' end,
        case when a.attgenerated <> '' then ' generated ' || pg_get_expr(d.adbin, d.adrelid) else '' end,
        case when a.attcollation <> 0 then ' collate ' || (select collname from pg_collation where oid = a.attcollation) else '' end) as line
      from pg_attribute a join pg_class c on c.oid = a.attrelid left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attrelid in (${tables}) and a.attnum > 0 and not a.attisdropped order by 1`,
    [schema],
  );
  const constraints = await pool.query<{ line: string }>(
    `select format('%s.%s %s', c.relname, k.conname, pg_get_constraintdef(k.oid)) as line from pg_constraint k join pg_class c on c.oid = k.conrelid
      where k.conrelid in (${tables}) and k.conparentid = 0 order by 1`,
    [schema],
  );
  const indexes = await pool.query<{ line: string }>(
    `select format('%s %s', c.relname, replace(pg_get_indexdef(i.indexrelid), ' ON ONLY ', ' ON ')) as line
      from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid in (${tables}) order by 1`,
    [schema],
  );
  return {
    columns: columns.rows.map((row) => row.line),
    constraints: constraints.rows.map((row) => row.line),
    indexes: indexes.rows.map((row) => row.line),
  };
}
