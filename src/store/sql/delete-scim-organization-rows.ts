/**
 * Removing one organization's SCIM data — its resources, their unique keys and its group
 * memberships — inside a transaction the caller owns, so an organization delete (spec §4.6) can
 * add its own tables to the same commit. Public in `scimkit/sql` for that client (the analytics
 * store), so the SCIM tables' layout stays the store's to know.
 */
import type { Kysely } from "kysely";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "./sql-tables.js";

/**
 * Deletes every row of `orgId` in `scimkit_members`, `scimkit_unique_keys` and
 * `scimkit_resources`, children first — the foreign keys would cascade, but a set-wise delete per
 * table is one statement each instead of a cascade per resource — and returns how many resources
 * there were. Call it inside `SqlDialect.writeTransaction`. Tokens are the token store's and are
 * left to the caller. `dialect` is the store's (`SqlStore.dialect`): rows it derives from
 * resources (SQLite's e-mail search, `SqlDialect.indexResources`) go too — required, because
 * without it their FTS5 text would stay behind in the file.
 *
 * @example await dialect.writeTransaction(db, (trx) => deleteScimOrganizationRows(trx, "acme", dialect)) // 1204
 */
export async function deleteScimOrganizationRows(
  trx: Kysely<SqlStoreDatabase>,
  orgId: string,
  dialect: Pick<SqlDialect, "indexResources">,
): Promise<number> {
  await dialect.indexResources?.(trx, { kind: "deleteOrganization", orgId });
  await trx.deleteFrom("scimkit_members").where("org_id", "=", orgId).execute();
  await trx.deleteFrom("scimkit_unique_keys").where("org_id", "=", orgId).execute();
  const resources = await trx.deleteFrom("scimkit_resources").where("org_id", "=", orgId).executeTakeFirst();
  return Number(resources.numDeletedRows);
}
