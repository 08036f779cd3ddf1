/**
 * Uniqueness in the table store (RFC 7643 §2.1 `uniqueness`): keys held in `scimkit_table_keys`,
 * claimed and released with each write, and — for a row the application wrote itself, which has
 * no key there — a clash with another row's own column, compared as the key is.
 */
import { sql, type Kysely } from "kysely";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import { uniqueValue } from "../../../scim/schema/unique-value.js";
import type { StoreScope, UniqueKey } from "../../resource-store.js";
import { uniquenessError } from "../../store-errors.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { foldedColumnEquality } from "./folded-column-equality.js";
import { locationOfKey } from "./mapped-columns.js";
import { deleteMeta } from "./table-meta-writes.js";
import { valueAt } from "./table-row.js";
import { TABLE_KEYS } from "./table-side-tables.js";
import { lockRow, orgCondition, otherThan, ROW } from "./table-sql.js";
import { idOf, type TableStoreState, type TypeTable } from "./table-store-state.js";

async function insertKey(trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string, key: UniqueKey): Promise<boolean> {
  // Skipped on a clash rather than raised: PostgreSQL would abort the transaction on the error.
  const inserted = await sql`insert into ${sql.table(TABLE_KEYS)} (org_id, resource_type, attribute, value, id) values (${sql.val(
    scope.orgId,
  )}, ${sql.val(scope.resourceType)}, ${sql.val(key.attribute)}, ${sql.val(key.value)}, ${sql.val(id)}) on conflict do nothing`.execute(
    trx,
  );
  return (inserted.numAffectedRows ?? 0n) > 0n;
}

/** Releases every key resource `id` holds. */
export function releaseKeys(trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string) {
  return sql`delete from ${sql.table(TABLE_KEYS)} where org_id = ${sql.val(scope.orgId)} and resource_type = ${sql.val(scope.resourceType)} and id = ${sql.val(
    id,
  )}`.execute(trx);
}

/**
 * Claims `keys` for `id`. A key whose holder's row is gone — the application deleted it with its
 * own code — is released and claimed, so a name is never held by a resource that no longer exists.
 */
export async function claimKeys(
  state: TableStoreState,
  trx: Kysely<SqlStoreDatabase>,
  type: TypeTable,
  scope: StoreScope,
  id: string,
  keys: readonly UniqueKey[],
): Promise<void> {
  for (const key of keys) {
    if (await insertKey(trx, scope, id, key)) continue;
    const holder = await sql<{
      readonly id: string;
    }>`select id from ${sql.table(TABLE_KEYS)} where org_id = ${sql.val(scope.orgId)} and resource_type = ${sql.val(
      scope.resourceType,
    )} and attribute = ${sql.val(key.attribute)} and value = ${sql.val(key.value)}`.execute(trx);
    const holderId = holder.rows[0]?.id;
    const parameter = holderId === undefined ? undefined : idOf(type, holderId);
    // A holder with this very id is a row the application deleted whose id the database reused.
    const alive = holderId !== id && parameter !== undefined && (await lockRow(state, trx, type, scope, parameter, "reference"));
    if (alive || holderId === undefined) throw uniquenessError(key.attribute);
    await releaseKeys(trx, scope, holderId);
    await deleteMeta(trx, scope, holderId);
    if (!(await insertKey(trx, scope, id, key))) throw uniquenessError(key.attribute);
  }
}

/**
 * Refuses `keys` another row of the table holds in its own column, compared as the key is
 * (`foldedColumnEquality`): a row the application wrote itself has no key in `scimkit_table_keys`,
 * and "Ada@Example.com" there is the same `userName` as "ada@example.com" (RFC 7643 §4.1.1).
 * `self` is the row being written, and `kept` what it holds already: a key it keeps is never
 * refused, so a user the application duplicated before can still be written (deprovisioned).
 */
export async function refuseColumnClash(
  state: TableStoreState,
  trx: Kysely<SqlStoreDatabase>,
  type: TypeTable,
  scope: StoreScope,
  keys: readonly UniqueKey[],
  self?: { readonly id: string | number; readonly kept: ScimObject },
): Promise<void> {
  for (const key of keys) {
    const location = locationOfKey(key.attribute);
    const mapped = type.columns.at(location);
    if (!mapped || mapped.toColumn || mapped.type !== "string") continue;
    const caseExact = key.caseExact === true;
    const held = self === undefined ? undefined : valueAt(self.kept, location);
    if (typeof held === "string" && uniqueValue(held, caseExact) === key.value) continue;
    const column = sql.ref(`${ROW}.${mapped.column}`);
    const others = self === undefined ? sql`` : otherThan(type, self.id);
    const clash = await sql`select 1 as found from ${sql.table(type.mapping.table)} as ${sql.id(ROW)} where ${orgCondition(
      state,
      scope.orgId,
    )} and ${foldedColumnEquality(state.dialect, column, key.value, caseExact)}${others} limit 1`.execute(trx);
    if (clash.rows.length > 0) throw uniquenessError(key.attribute);
  }
}
