/**
 * Uniqueness in the database (architecture §3): one `scimkit_unique_keys` row per `UniqueKey`, whose
 * primary key `(org_id, resource_type, attribute, value)` decides a race between two processes —
 * the second insert waits for the first transaction and then finds the key taken.
 */
import { sql, type AliasedRawBuilder, type Kysely } from "kysely";
import type { StoreScope, UniqueKey } from "../resource-store.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { runDeferrable } from "./deferred-statement.js";
import { uniquenessError } from "../store-errors.js";
import type { SqlStoreDatabase } from "./sql-tables.js";

/**
 * Claims `keys` for resource `id`, one insert each so the clash names its attribute. A key held
 * by another resource throws 409 `uniqueness`; the caller's transaction then rolls back, so
 * nothing of the write remains.
 */
export async function claimUniqueKeys(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  scope: StoreScope,
  id: string,
  keys: readonly UniqueKey[],
): Promise<void> {
  for (const key of keys) {
    const insert = trx.insertInto("scimkit_unique_keys").values({
      org_id: scope.orgId,
      resource_type: scope.resourceType,
      attribute: key.attribute,
      value: key.value,
      id,
    });
    // A conflict is skipped rather than raised (PostgreSQL would abort the transaction on the
    // error), and counted: no row inserted is the key's 409, naming its attribute.
    await runDeferrable(trx, dialect.ignoreConflicts(insert).compile(), { atLeast: 1, otherwise: () => uniquenessError(key.attribute) });
  }
}

/**
 * The unique keys a resource row holds, as one column `held_keys` of a statement over
 * `scimkit_resources as r`, so an update reads them with its row instead of in a statement of their
 * own; `undefined` for a dialect this does not know how to aggregate JSON in (the keys are then read apart).
 */
export function heldKeysColumn(dialect: Pick<SqlDialect, "name">): AliasedRawBuilder<unknown, "held_keys"> | undefined {
  switch (dialect.name) {
    case "sqlite":
      return sql`(select json_group_array(json_array(k.attribute, k.value)) from scimkit_unique_keys k
        where k.org_id = r.org_id and k.id = r.id)`.as("held_keys");
    case "postgres":
      return sql`(select coalesce(json_agg(json_build_array(k.attribute, k.value)), '[]'::json) from scimkit_unique_keys k
        where k.org_id = r.org_id and k.id = r.id)`.as("held_keys");
    default:
      return undefined;
  }
}

/** The keys `heldKeysColumn` read: JSON text (SQLite) or the array pg parsed. */
export function heldKeysOf(column: unknown): readonly UniqueKey[] {
  const pairs = (typeof column === "string" ? JSON.parse(column) : column) as readonly (readonly [string, string])[];
  return pairs.map(([attribute, value]) => ({ attribute, value }));
}

async function readHeldKeys(trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string): Promise<readonly UniqueKey[]> {
  return trx
    .selectFrom("scimkit_unique_keys")
    .select(["attribute", "value"])
    .where("org_id", "=", scope.orgId)
    .where("id", "=", id)
    .execute();
}

/**
 * Makes `keys` the unique keys of resource `id`, which holds `held` (read here when not given):
 * releases the ones it no longer has, keeps the unchanged ones (a userName that only changes case
 * keeps its key: no statement at all), claims the new ones. Nothing here reads a result, so on
 * SQLite's writer thread it goes with the rest of the update, in one message.
 */
export async function replaceUniqueKeys(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  scope: StoreScope,
  id: string,
  keys: readonly UniqueKey[],
  held?: readonly UniqueKey[],
): Promise<void> {
  const address = (key: UniqueKey): string => JSON.stringify([key.attribute, key.value]);
  const wanted = new Set(keys.map(address));
  const kept = new Set<string>();
  for (const key of held ?? (await readHeldKeys(trx, scope, id))) {
    if (wanted.has(address(key))) {
      kept.add(address(key));
      continue;
    }
    const release = trx
      .deleteFrom("scimkit_unique_keys")
      .where("org_id", "=", scope.orgId)
      .where("resource_type", "=", scope.resourceType)
      .where("attribute", "=", key.attribute)
      .where("value", "=", key.value)
      .where("id", "=", id)
      .compile();
    await runDeferrable(trx, release);
  }
  await claimUniqueKeys(
    trx,
    dialect,
    scope,
    id,
    keys.filter((key) => !kept.has(address(key))),
  );
}
