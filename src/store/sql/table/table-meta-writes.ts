/**
 * Writing a resource's version and times, wherever the mapping keeps them: in the side table
 * `scimkit_table_meta`, in the application's own columns, or both (`TableMeta`).
 */
import { sql, type Kysely } from "kysely";
import type { StoreScope } from "../../resource-store.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { TABLE_META } from "./table-side-tables.js";
import { byId, orgCondition, ROW } from "./table-sql.js";
import { idOf, type TableStoreState, type TypeTable } from "./table-store-state.js";

/** Deletes the side meta row of `id`. */
export function deleteMeta(trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string) {
  return sql`delete from ${sql.table(TABLE_META)} where org_id = ${sql.val(scope.orgId)} and resource_type = ${sql.val(scope.resourceType)} and id = ${sql.val(
    id,
  )}`.execute(trx);
}

/** Sets the side meta row of `id`: its version and last modification, and its creation when new. */
export function writeMeta(
  trx: Kysely<SqlStoreDatabase>,
  scope: StoreScope,
  id: string,
  version: number,
  created: string,
  lastModified: string,
) {
  return sql`insert into ${sql.table(TABLE_META)} (org_id, resource_type, id, version, created, last_modified) values (${sql.val(scope.orgId)}, ${sql.val(
    scope.resourceType,
  )}, ${sql.val(id)}, ${sql.val(version)}, ${sql.val(created)}, ${sql.val(lastModified)})
      on conflict (org_id, resource_type, id) do update set version = excluded.version, last_modified = excluded.last_modified`.execute(
    trx,
  );
}

/** A write to `id` without knowing its version: one more than the stored one (1 for a row the application wrote). */
function bumpMeta(trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string, now: string) {
  return sql`insert into ${sql.table(TABLE_META)} (org_id, resource_type, id, version, created, last_modified) values (${sql.val(scope.orgId)}, ${sql.val(
    scope.resourceType,
  )}, ${sql.val(id)}, 1, ${sql.val(now)}, ${sql.val(now)})
      on conflict (org_id, resource_type, id) do update set version = ${sql.table(TABLE_META)}.version + 1, last_modified = excluded.last_modified`.execute(
    trx,
  );
}

/** Sets the version and times the application's row keeps, on a write that changes no mapped column. */
export async function setRowMeta(
  state: TableStoreState,
  trx: Kysely<SqlStoreDatabase>,
  type: TypeTable,
  scope: StoreScope,
  id: string | number,
  version: number,
  at: string,
): Promise<void> {
  const values = type.meta.rowValues({ version, lastModified: at });
  // A row keeping only its creation time has nothing to set.
  if (Object.keys(values).length === 0) return;
  await sql`update ${sql.table(type.mapping.table)} as ${sql.id(ROW)} set ${sql.join(
    Object.entries(values).map(([name, value]) => sql`${sql.id(name)} = ${sql.val(value)}`),
  )} where ${orgCondition(state, scope.orgId)} and ${byId(type, id)}`.execute(trx);
}

/** A write to group `id` the group's own writer did not make (a member deleted): a new version and time, wherever kept. */
export async function bumpGroup(
  state: TableStoreState,
  trx: Kysely<SqlStoreDatabase>,
  type: TypeTable,
  scope: StoreScope,
  id: string,
  at: string,
): Promise<void> {
  if (type.meta.side) await bumpMeta(trx, scope, id, at);
  const set = type.meta.bump(ROW, at);
  const parameter = idOf(type, id);
  if (set.length === 0 || parameter === undefined) return;
  await sql`update ${sql.table(type.mapping.table)} as ${sql.id(ROW)} set ${sql.join(
    set.map(([name, value]) => sql`${sql.id(name)} = ${value}`),
  )} where ${orgCondition(state, scope.orgId)} and ${byId(type, parameter)}`.execute(trx);
}
