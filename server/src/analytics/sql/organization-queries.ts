/**
 * Organizations in SQL (`scimkit_organizations`), and their delete: the organization and every
 * row of it — SCIM and analytics — in one write transaction.
 */
import type { Kysely, Selectable } from "kysely";
import { deleteScimOrganizationRows, lockRows, type SqlDialect, type SqlStoreDatabase } from "scimkit/sql";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";
import type { AnalyticsDatabase, OrganizationsTable } from "./analytics-tables.js";
import type { CompatibilityProfileName } from "scimkit/core";
import type { ExistingUserPolicy } from "scimkit";
import type { AnalyticsStore, OrgScope, Organization, OrganizationStatus } from "../analytics-store.js";
import { checkParentChain } from "../check-parent-chain.js";
import { organizationTreeError } from "../organization-tree-error.js";
import { deleteAnalyticsOrganizationRows } from "./delete-analytics-organization-rows.js";
import { pageOf, rowsToRead } from "./keyset-page.js";
import { lockChain, lockSubtree, subtreeIds, subtreeRows } from "./organization-tree.js";
import { scopeOrgIds } from "./scope-org-ids.js";

/** The organization a row holds. */
export function organizationOf(row: Selectable<OrganizationsTable>): Organization {
  return {
    id: row.id,
    name: row.name,
    status: row.status as OrganizationStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    // Written only through the validated API, CLI and this store: read back as the names they were.
    ...(row.compatibility === null ? {} : { compatibility: row.compatibility as CompatibilityProfileName }),
    ...(row.existing_users === null ? {} : { existingUsers: row.existing_users as ExistingUserPolicy }),
    ...(row.parent_id === null ? {} : { parentId: row.parent_id }),
  };
}

/** Inserts `organization`; the primary key rejects an id that exists, as the contract asks. */
async function insertOrganization(db: Kysely<AnalyticsDatabase>, organization: Organization): Promise<void> {
  await db
    .insertInto("scimkit_organizations")
    .values({
      id: organization.id,
      name: organization.name,
      status: organization.status,
      created_at: organization.createdAt,
      updated_at: organization.updatedAt,
      compatibility: organization.compatibility ?? null,
      existing_users: organization.existingUsers ?? null,
      parent_id: organization.parentId ?? null,
    })
    .execute();
}

/** The organization members of `AnalyticsStore` over `db`. */
export function organizationQueries(
  db: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
): Pick<
  AnalyticsStore,
  "listOrganizations" | "getOrganization" | "listSubtreeIds" | "createOrganization" | "updateOrganization" | "deleteOrganization"
> {
  /** The organizations of `scope` as a query, or undefined when the scope holds none. */
  const inScope = (on: Kysely<AnalyticsDatabase>, scope: OrgScope) => {
    const ids = scopeOrgIds(scope);
    if (ids?.length === 0) return undefined;
    const query = on.selectFrom("scimkit_organizations").selectAll();
    return ids === undefined ? query : query.where("id", "in", ids);
  };

  return {
    async listOrganizations(scope, page, filter = {}) {
      let query = inScope(db, scope);
      if (!query) return { items: [] };
      if (filter.status !== undefined) query = query.where("status", "=", filter.status);
      if (filter.parentId !== undefined) query = query.where("parent_id", "=", filter.parentId);
      if (page.after !== undefined) query = query.where("id", ">", page.after);
      const rows = await query.orderBy("id").limit(rowsToRead(page)).execute();
      return pageOf(rows, page, organizationOf, (organization) => organization.id);
    },

    async getOrganization(scope, id) {
      const row = await inScope(db, scope)?.where("id", "=", id).executeTakeFirst();
      return row ? organizationOf(row) : undefined;
    },

    listSubtreeIds(rootIds) {
      return subtreeIds(db, rootIds);
    },

    async createOrganization(organization, options = {}) {
      const { id, parentId } = organization;
      if (parentId === undefined && options.clearLeftovers !== true) {
        await insertOrganization(db, organization);
        return;
      }
      return analyticsWriteTransaction(db, dialect, async (trx, scim) => {
        if (parentId !== undefined) checkParentChain(await lockChain(trx, dialect, parentId), parentId, 1);
        if (options.clearLeftovers === true) await deleteOrganizationData(trx, scim, dialect, [id]);
        await insertOrganization(trx, organization);
      });
    },

    updateOrganization(scope, id, change) {
      const { parentId } = change;
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        // A move locks the organization with the new parent's chain, in one ordered statement.
        const chain = typeof parentId === "string" ? await lockChain(trx, dialect, parentId, id) : undefined;
        const query = inScope(trx, scope)?.where("id", "=", id);
        const row = query ? await lockRows(query, dialect, "update").executeTakeFirst() : undefined;
        if (!row) return undefined;
        if (chain !== undefined && typeof parentId === "string" && parentId !== row.parent_id) {
          // Its subtree moves with it, so the deepest descendant must still fit under the bound.
          // A child added under it meanwhile locks it too, so this read is of the committed tree.
          const height = Math.max(...(await subtreeRows(trx, id)).map((member) => member.level));
          checkParentChain(chain, parentId, height, id);
        }
        const next: Selectable<OrganizationsTable> = {
          ...row,
          ...(change.name === undefined ? {} : { name: change.name }),
          ...(change.status === undefined ? {} : { status: change.status }),
          ...(change.compatibility === undefined ? {} : { compatibility: change.compatibility }),
          ...(change.existingUsers === undefined ? {} : { existing_users: change.existingUsers }),
          ...(change.parentId === undefined ? {} : { parent_id: change.parentId }),
          updated_at: change.updatedAt,
        };
        await trx
          .updateTable("scimkit_organizations")
          .set({
            name: next.name,
            status: next.status,
            compatibility: next.compatibility,
            existing_users: next.existing_users,
            parent_id: next.parent_id,
            updated_at: next.updated_at,
          })
          .where("id", "=", id)
          .execute();
        if (change.cascade === true && change.status !== undefined) {
          // Locked as a delete of the subtree is, so a child added meanwhile is seen and changed too.
          const members = (await lockSubtree(trx, dialect, id)).map((member) => member.id);
          await trx
            .updateTable("scimkit_organizations")
            .set({ status: change.status, updated_at: change.updatedAt })
            .where("id", "in", members)
            .execute();
        }
        return organizationOf(next);
      });
    },

    deleteOrganization(scope, id, options = {}) {
      return analyticsWriteTransaction(db, dialect, async (trx, scim) => {
        // Locked in id order as a move locks, first, so a child created or moved in meanwhile is
        // seen or refused; a subtree that is only the organization costs one row lock.
        const members = (await lockSubtree(trx, dialect, id)).map((member) => member.id);
        // Deleted meanwhile by another delete: nothing left to lock, and no `in ()` to build.
        if (members.length === 0) return false;
        const query = inScope(trx, scope)?.where("id", "=", id);
        // The delete lock makes a concurrent update of the organization wait, then find it gone.
        const row = query ? await lockRows(query, dialect, "delete").executeTakeFirst() : undefined;
        if (!row) return false;
        if (members.length > 1 && options.subtree !== true) {
          throw organizationTreeError({ kind: "has-children", children: await countChildren(trx, id) });
        }
        // One transaction (issue 6: "in one transaction"): a failure anywhere leaves all of it.
        await deleteOrganizationData(trx, scim, dialect, members);
        // One statement, so the parent references inside the subtree are checked once all are gone.
        await trx.deleteFrom("scimkit_organizations").where("id", "in", members).execute();
        return true;
      });
    },
  };
}

/** How many organizations have `id` as their parent. */
async function countChildren(db: Kysely<AnalyticsDatabase>, id: string): Promise<number> {
  const row = await db
    .selectFrom("scimkit_organizations")
    .select((eb) => eb.fn.countAll<number | string>().as("children"))
    .where("parent_id", "=", id)
    .executeTakeFirstOrThrow();
  return Number(row.children);
}

/**
 * Everything of the organizations `orgIds` but their own rows — analytics rows, SCIM resources
 * (the SCIM store's to know, an organization at a time) and SCIM tokens — inside `trx`.
 */
async function deleteOrganizationData(
  trx: Kysely<AnalyticsDatabase>,
  scim: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  orgIds: readonly string[],
): Promise<void> {
  if (orgIds.length === 0) return;
  await deleteAnalyticsOrganizationRows(trx, orgIds);
  for (const orgId of orgIds) await deleteScimOrganizationRows(scim, orgId, dialect);
  await trx.deleteFrom("scimkit_tokens").where("org_id", "in", orgIds).execute();
}
