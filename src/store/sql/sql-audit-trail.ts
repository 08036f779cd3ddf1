/**
 * `sqlAuditTrail`: the reference `AuditTrail` in SQL, on the `scimkit_audit` table of the SQL
 * store's database (migration 6). Each entry is one insert, a statement of its own, so it is
 * kept even when the write it describes failed and rolled back.
 */
import type { Kysely, Selectable } from "kysely";
import { v7 as uuidv7 } from "uuid";
import type { AuditEntry } from "../../audit/audit-sink.js";
import { auditPageSize, type AuditRecord, type AuditTrail } from "../../audit/audit-trail.js";
import type { AuditTable, SqlStoreDatabase } from "./sql-tables.js";

function recordOf(row: Selectable<AuditTable>): AuditRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    ...(row.token_id === null ? {} : { tokenId: row.token_id }),
    operation: row.operation,
    ...(row.resource_type === null ? {} : { resourceType: row.resource_type }),
    ...(row.resource_id === null ? {} : { resourceId: row.resource_id }),
    at: row.at,
    outcome: row.outcome === "success" ? "success" : "failure",
    status: Number(row.status),
    ...(row.scim_type === null ? {} : { scimType: row.scim_type }),
    via: row.via,
    ...(row.bulk_id === null ? {} : { bulkId: row.bulk_id }),
    ...(row.target === null ? {} : { target: row.target }),
  };
}

/**
 * An `AuditTrail` on `scimkit_audit` of `db`: pass the SQL store's `db` (its migrations create
 * the table), or a Kysely instance of yours on which they have run.
 *
 * @example
 * const store = await sqlStore({ postgres: process.env.DATABASE_URL });
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: store.tokens, onAudit: sqlAuditTrail(store.db) }));
 */
export function sqlAuditTrail(db: Kysely<SqlStoreDatabase>): AuditTrail {
  return {
    async record(entry: AuditEntry): Promise<void> {
      await db
        .insertInto("scimkit_audit")
        .values({
          org_id: entry.orgId,
          id: uuidv7(),
          at: entry.at,
          token_id: entry.tokenId ?? null,
          operation: entry.operation,
          resource_type: entry.resourceType ?? null,
          resource_id: entry.resourceId ?? null,
          outcome: entry.outcome,
          status: entry.status,
          scim_type: entry.scimType ?? null,
          via: entry.via,
          bulk_id: entry.bulkId ?? null,
          target: entry.target ?? null,
        })
        .execute();
    },

    async list(orgId, query) {
      let select = db.selectFrom("scimkit_audit").selectAll().where("org_id", "=", orgId);
      if (query?.before !== undefined) select = select.where("id", "<", query.before);
      // The primary key (org_id, id) read backwards: no sort.
      const rows = await select.orderBy("id", "desc").limit(auditPageSize(query)).execute();
      return rows.map(recordOf);
    },
  };
}
