/**
 * Removing one organization's SCIM data — its resources, their unique keys and its group
 * memberships — inside a transaction the caller owns, so an organization delete (spec §4.6) can
 * add its own tables to the same commit. Public in `scimkit/sql` for that client (the analytics
 * store), so the SCIM tables' layout stays the store's to know.
 */
import type { Kysely } from "kysely";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { bumpOrganizationGenerations } from "./list-generation.js";

// What else of an organization the SCIM namespace keeps, each holding its users' data or its
// secrets: the provisioning log (migration 12, bodies), the event outbox and its numbering
// (13, 14: whole resources), its event receivers (their Authorization values) and its SET
// signing key (15). None may outlive the organization.
// Each with the SCIM migration that creates it.
const ORGANIZATION_TABLES = [
  ["scimkit_request_log", 12],
  ["scimkit_events", 13],
  ["scimkit_event_sequences", 13],
  ["scimkit_event_receivers", 14],
  ["scimkit_event_keys", 14],
] as const;

/** The migration that creates `scimkit_list_generations`. */
const LIST_GENERATIONS = 19;

/**
 * Deletes every row of `orgId` in `scimkit_members`, `scimkit_unique_keys` and
 * `scimkit_resources`, and in the provisioning log, the event outbox, the event receivers and
 * the SET signing keys, children first — the foreign keys would cascade, but a set-wise delete per
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
  // A database opened without the later migrations (`migrate: false`) lacks some of them.
  const applied = await trx
    .selectFrom("scimkit_migrations")
    .select("version")
    .where("namespace", "=", "scim")
    .where("version", "in", [...new Set([...ORGANIZATION_TABLES.map(([, version]) => version), LIST_GENERATIONS])])
    .execute();
  const versions = new Set(applied.map((row) => Number(row.version)));
  const generationsKept = versions.has(LIST_GENERATIONS);
  for (const [table, version] of ORGANIZATION_TABLES) {
    if (versions.has(version)) await trx.deleteFrom(table).where("org_id", "=", orgId).execute();
  }
  // Positions remembered in any process for the organization's lists must not hold for one created again under its id.
  if (generationsKept) await bumpOrganizationGenerations(trx, orgId);
  await trx.deleteFrom("scimkit_members").where("org_id", "=", orgId).execute();
  await trx.deleteFrom("scimkit_unique_keys").where("org_id", "=", orgId).execute();
  const resources = await trx.deleteFrom("scimkit_resources").where("org_id", "=", orgId).executeTakeFirst();
  return Number(resources.numDeletedRows);
}
