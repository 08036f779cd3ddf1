/**
 * Uniqueness in the database (architecture §3): one `scimkit_unique_keys` row per `UniqueKey`, whose
 * primary key `(org_id, resource_type, attribute, value)` decides a race between two processes —
 * the second insert waits for the first transaction and then finds the key taken.
 */
import type { Kysely } from "kysely";
import type { StoreScope, UniqueKey } from "../resource-store.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
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
    // A conflict is skipped rather than raised: PostgreSQL would abort the transaction on the error.
    const result = await dialect.ignoreConflicts(insert).executeTakeFirst();
    if ((result.numInsertedOrUpdatedRows ?? 0n) === 0n) throw uniquenessError(key.attribute);
  }
}

/**
 * Makes `keys` the unique keys of resource `id`: releases the ones it no longer has, keeps the
 * unchanged ones (a userName that only changes case keeps its key), claims the new ones.
 */
export async function replaceUniqueKeys(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  scope: StoreScope,
  id: string,
  keys: readonly UniqueKey[],
): Promise<void> {
  const held = await trx
    .selectFrom("scimkit_unique_keys")
    .select(["attribute", "value"])
    .where("org_id", "=", scope.orgId)
    .where("id", "=", id)
    .execute();
  const address = (key: UniqueKey): string => JSON.stringify([key.attribute, key.value]);
  const wanted = new Set(keys.map(address));
  const kept = new Set<string>();
  for (const key of held) {
    if (wanted.has(address(key))) {
      kept.add(address(key));
      continue;
    }
    await trx
      .deleteFrom("scimkit_unique_keys")
      .where("org_id", "=", scope.orgId)
      .where("resource_type", "=", scope.resourceType)
      .where("attribute", "=", key.attribute)
      .where("value", "=", key.value)
      .where("id", "=", id)
      .execute();
  }
  await claimUniqueKeys(
    trx,
    dialect,
    scope,
    id,
    keys.filter((key) => !kept.has(address(key))),
  );
}
