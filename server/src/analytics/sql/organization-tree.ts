/**
 * The organization tree in SQL (issue 17): an organization's chain of ancestors and its subtree,
 * each one `with recursive` query that SQLite and PostgreSQL both run as written, and the row
 * locks that make two racing changes of the tree see each other.
 *
 * Why the locks suffice: a move of X under P locks X and P's chain; a change that could combine
 * with it into a cycle or an over-deep chain moves or adds something on that chain or in X's
 * subtree, so it locks X or a row of P's chain too. The two then share a locked row: one waits
 * for the other's commit, and reads the tree again after taking its locks (`lockChain`,
 * `lockSubtree` return what a fresh statement sees), so it decides on the committed tree.
 */
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import { MAX_ORGANIZATION_DEPTH } from "../organization-tree-error.js";
import type { AnalyticsDatabase } from "./analytics-tables.js";

// A chain never holds more than MAX_ORGANIZATION_DEPTH rows; the bound also stops a walk over
// rows a hand edit of the database turned into a cycle.
const WALK_LIMIT = MAX_ORGANIZATION_DEPTH + 1;

/** `id` and its ancestors as a recursive CTE named `chain(id, level)`: level 1 is `id` itself. */
function chainOf(id: string): RawBuilder<unknown> {
  return sql`with recursive chain(id, parent_id, level) as (
    select id, parent_id, 1 from scimkit_organizations where id = ${id}
    union all
    select o.id, o.parent_id, c.level + 1 from scimkit_organizations o join chain c on o.id = c.parent_id
    where c.level < ${WALK_LIMIT}
  )`;
}

/**
 * `ids` and each one's ancestors as a recursive CTE named `chains(start, id, parent_id, level)`:
 * level 1 is `start` itself. `ids` must not be empty.
 */
function chainsOf(ids: readonly string[]): RawBuilder<unknown> {
  return sql`with recursive chains(start, id, parent_id, level) as (
    select id, id, parent_id, 1 from scimkit_organizations where id in (${sql.join(ids)})
    union all
    select c.start, o.id, o.parent_id, c.level + 1 from scimkit_organizations o join chains c on o.id = c.parent_id
    where c.level < ${WALK_LIMIT}
  )`;
}

/**
 * `ids` and their descendants as a recursive CTE named `subtree(id, level)`: level 1 is a root
 * itself. `ids` must not be empty.
 */
function subtreeOf(ids: readonly string[]): RawBuilder<unknown> {
  return sql`with recursive subtree(id, level) as (
    select id, 1 from scimkit_organizations where id in (${sql.join(ids)})
    union all
    select o.id, s.level + 1 from scimkit_organizations o join subtree s on o.parent_id = s.id
    where s.level < ${WALK_LIMIT}
  )`;
}

/**
 * `id` and its ancestors, from `id` up to the root; empty when there is no organization `id`.
 *
 * @example await chainIds(db, "acme-emea") // ["acme-emea", "acme"]
 */
export async function chainIds(db: Kysely<AnalyticsDatabase>, id: string): Promise<string[]> {
  const { rows } = await sql<{ readonly id: string }>`${chainOf(id)} select id from chain order by level`.execute(db);
  return rows.map((row) => row.id);
}

/**
 * `id` and its descendants, each with its level below `id` (1 for `id`); empty when there is no
 * organization `id`.
 *
 * @example await subtreeRows(db, "acme") // [{ id: "acme", level: 1 }, { id: "acme-emea", level: 2 }]
 */
export async function subtreeRows(db: Kysely<AnalyticsDatabase>, id: string): Promise<{ readonly id: string; readonly level: number }[]> {
  const { rows } = await sql<{ readonly id: string; readonly level: number | string }>`${subtreeOf([id])}
    select id, level from subtree order by id`.execute(db);
  // Normalized in case a driver hands a computed integer back as a string.
  return rows.map((row) => ({ id: row.id, level: Number(row.level) }));
}

/**
 * The organizations `rootIds` and all their descendants, sorted and without repeats (a root may
 * lie in another's subtree).
 *
 * @example await subtreeIds(db, ["acme"]) // ["acme", "acme-amer", "acme-emea"]
 */
export async function subtreeIds(db: Kysely<AnalyticsDatabase>, rootIds: readonly string[]): Promise<string[]> {
  if (rootIds.length === 0) return [];
  const { rows } = await sql<{ readonly id: string }>`${subtreeOf(rootIds)} select distinct id from subtree order by id`.execute(db);
  return rows.map((row) => row.id);
}

/**
 * Locks the rows `cte` (named `name`) selects, and `also`, with `dialect`'s clause (none on
 * SQLite). One statement in id order: two changes locking overlapping sets take their rows in the
 * same order, so they queue instead of deadlocking.
 */
async function lockRows(
  trx: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
  cte: RawBuilder<unknown>,
  name: string,
  also?: string,
): Promise<void> {
  const clause = dialect.rowLock("update");
  if (clause === undefined) return;
  const extra = also === undefined ? sql`` : sql`or o.id = ${also}`;
  // The lock goes on the table's rows: PostgreSQL locks no rows of a CTE.
  await sql`${cte} select o.id from scimkit_organizations o
    where o.id in (select id from ${sql.table(name)}) ${extra} order by o.id ${clause}`.execute(trx);
}

/**
 * Locks `parentId`'s chain, and `movingId` when given (the organization to place under it), until
 * the transaction ends, then reads the chain again: `chainIds` as the tree is once every racing
 * change that shares a row with it has committed. Call it before any other lock of the change.
 */
export async function lockChain(
  trx: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
  parentId: string,
  movingId?: string,
): Promise<string[]> {
  await lockRows(trx, dialect, chainOf(parentId), "chain", movingId);
  return chainIds(trx, parentId);
}

/** Locks `id`'s subtree until the transaction ends, then reads it again (`subtreeRows`). */
export async function lockSubtree(
  trx: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
  id: string,
): Promise<{ readonly id: string; readonly level: number }[]> {
  await lockRows(trx, dialect, subtreeOf([id]), "subtree");
  return subtreeRows(trx, id);
}

/**
 * Locks the chains of `ids` (each organization and its ancestors) in one statement until the
 * transaction ends, then reads them again: each id's chain from itself up to its root, as
 * `chainIds` gives it once every racing change sharing a row has committed — an id with no
 * organization has an empty chain. What a grant is decided on (`grantsBeyond`): a move of any
 * organization on a chain locks that row too, so it waits for the grant or the grant for it.
 *
 * @example (await lockChains(trx, dialect, ["acme-emea"])).get("acme-emea") // ["acme-emea", "acme"]
 */
export async function lockChains(
  trx: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
  ids: readonly string[],
): Promise<ReadonlyMap<string, readonly string[]>> {
  const chains = new Map<string, string[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return chains;
  await lockRows(trx, dialect, chainsOf(ids), "chains");
  const { rows } = await sql<{ readonly start: string; readonly id: string }>`${chainsOf(ids)}
    select start, id from chains order by start, level`.execute(trx);
  for (const row of rows) chains.get(row.start)?.push(row.id);
  return chains;
}
