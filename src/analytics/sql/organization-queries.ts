/**
 * Organizations in SQL (`scimkit_organizations`), and their delete: the organization and every
 * row of it — SCIM and analytics — in one write transaction.
 */
import type { Kysely, Selectable } from "kysely";
import { deleteScimOrganizationRows, type SqlDialect } from "scimkit/sql";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";
import { withRowLock } from "./with-row-lock.js";
import type { AnalyticsDatabase, OrganizationsTable } from "./analytics-tables.js";
import type { CompatibilityProfileName } from "scimkit/core";
import type { ExistingUserPolicy } from "scimkit";
import type { AnalyticsStore, OrgScope, Organization, OrganizationStatus } from "../analytics-store.js";
import { deleteAnalyticsOrganizationRows } from "./delete-analytics-organization-rows.js";
import { pageOf, rowsToRead } from "./keyset-page.js";
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
  };
}

/** The organization members of `AnalyticsStore` over `db`. */
export function organizationQueries(
  db: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
): Pick<AnalyticsStore, "listOrganizations" | "getOrganization" | "createOrganization" | "updateOrganization" | "deleteOrganization"> {
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
      if (page.after !== undefined) query = query.where("id", ">", page.after);
      const rows = await query.orderBy("id").limit(rowsToRead(page)).execute();
      return pageOf(rows, page, organizationOf, (organization) => organization.id);
    },

    async getOrganization(scope, id) {
      const row = await inScope(db, scope)?.where("id", "=", id).executeTakeFirst();
      return row ? organizationOf(row) : undefined;
    },

    async createOrganization(organization) {
      // The primary key rejects an id that exists, as the contract asks.
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
        })
        .execute();
    },

    updateOrganization(scope, id, change) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const query = inScope(trx, scope)?.where("id", "=", id);
        const row = query ? await withRowLock(query, dialect, "update").executeTakeFirst() : undefined;
        if (!row) return undefined;
        const next: Selectable<OrganizationsTable> = {
          ...row,
          ...(change.name === undefined ? {} : { name: change.name }),
          ...(change.status === undefined ? {} : { status: change.status }),
          ...(change.compatibility === undefined ? {} : { compatibility: change.compatibility }),
          ...(change.existingUsers === undefined ? {} : { existing_users: change.existingUsers }),
          updated_at: change.updatedAt,
        };
        await trx
          .updateTable("scimkit_organizations")
          .set({
            name: next.name,
            status: next.status,
            compatibility: next.compatibility,
            existing_users: next.existing_users,
            updated_at: next.updated_at,
          })
          .where("id", "=", id)
          .execute();
        return organizationOf(next);
      });
    },

    deleteOrganization(scope, id) {
      return analyticsWriteTransaction(db, dialect, async (trx, scim) => {
        const query = inScope(trx, scope)?.where("id", "=", id);
        // The delete lock makes a concurrent update of the organization wait, then find it gone.
        const row = query ? await withRowLock(query, dialect, "delete").executeTakeFirst() : undefined;
        if (!row) return false;
        // One transaction (issue 6: "in one transaction"): a failure anywhere leaves all of it.
        await deleteAnalyticsOrganizationRows(trx, id);
        await deleteScimOrganizationRows(scim, id, dialect);
        await trx.deleteFrom("scimkit_tokens").where("org_id", "=", id).execute();
        await trx.deleteFrom("scimkit_organizations").where("id", "=", id).execute();
        return true;
      });
    },
  };
}
