/**
 * Uniqueness in the database (architecture §3): one `scimkit_unique_keys` row per `UniqueKey`, whose
 * primary key `(org_id, resource_type, attribute, value)` decides a race between two processes —
 * the second insert waits for the first transaction and then finds the key taken.
 */
import type { Kysely } from "kysely";
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
 * Makes `keys` the unique keys of resource `id`: releases all it holds, then claims `keys` (a key
 * it keeps, e.g. a userName that only changes case, is claimed again at once). Nothing here reads
 * a result, so on SQLite's writer thread it goes with the rest of the update, in one message.
 */
export async function replaceUniqueKeys(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  scope: StoreScope,
  id: string,
  keys: readonly UniqueKey[],
): Promise<void> {
  await runDeferrable(trx, trx.deleteFrom("scimkit_unique_keys").where("org_id", "=", scope.orgId).where("id", "=", id).compile());
  await claimUniqueKeys(trx, dialect, scope, id, keys);
}
