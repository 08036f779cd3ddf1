/**
 * The report jobs of the SQL analytics store (`scimkit_operations`, `scimkit_report_rows`):
 * admission (dedupe and bounds, under the organization's lock), claims with heartbeats and
 * takeover (`FOR UPDATE SKIP LOCKED` on PostgreSQL), writes fenced by the owner's claim, and the
 * purge of expired operations in bounded batches.
 */
import { type Kysely, type Updateable, sql } from "kysely";
import { lockRows, type SqlDialect } from "scimkit/sql";
import type { ReportJobStore, ReportStart } from "../analytics-store.js";
import type { AnalyticsDatabase, OperationsTable } from "./analytics-tables.js";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";
import { purgeExpiredOperations } from "./purge-expired-operations.js";
import { alive, insertOperation, type OperationsExpression, operationOf, REPORT_PAGE_ROWS } from "./operation-rows.js";

/**
 * The claim rule of `claimOperation`: unexpired, queued or running, and either never claimed
 * (queued, no owner), or running without a heartbeat (its worker predates heartbeats), or its
 * owner's heartbeat older than the lease.
 */
function claimable(eb: OperationsExpression, now: string, staleBefore: string) {
  return eb.and([
    alive(eb, now),
    eb("status", "in", ["queued", "running"]),
    eb.or([
      eb.and([eb("heartbeat_at", "is", null), eb.or([eb("owner_id", "is", null), eb("status", "=", "running")])]),
      eb("heartbeat_at", "<", staleBefore),
    ]),
  ]);
}

/** The report-job members of `OperationStore` over `db`. */
export function reportJobQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): ReportJobStore {
  return {
    async updateOperation(id, update, ownerId) {
      const change: Updateable<OperationsTable> = {
        ...(update.status === undefined ? {} : { status: update.status }),
        // The progress is one value: a new one without a total has none (yet).
        ...(update.progress === undefined ? {} : { progress_done: update.progress.done, progress_total: update.progress.total ?? null }),
        ...(update.startedAt === undefined ? {} : { started_at: update.startedAt }),
        ...(update.finishedAt === undefined ? {} : { finished_at: update.finishedAt }),
        ...(update.error === undefined ? {} : { error: update.error }),
      };
      let query = db.updateTable("scimkit_operations").where("id", "=", id);
      // Fenced: a worker whose claim was taken over changes nothing of the new owner's run.
      if (ownerId !== undefined) query = query.where("owner_id", "=", ownerId);
      if (Object.keys(change).length === 0) {
        const exists = await query.set({ id }).executeTakeFirst();
        return Number(exists.numUpdatedRows) > 0;
      }
      const result = await query.set(change).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async appendReportRows(operationId, rows, ownerId) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        // The operation's lock orders appends: each numbers its rows after the last one committed;
        // and a claim takes the same lock, so the owner checked here is the owner at commit.
        const operation = await lockRows(
          trx.selectFrom("scimkit_operations").select(["id", "owner_id"]).where("id", "=", operationId),
          dialect,
          "update",
        ).executeTakeFirst();
        // Gone with its organization (or expired) while the report ran: its rows have nowhere to go.
        if (!operation) return false;
        if (ownerId !== undefined && operation.owner_id !== ownerId) return false;
        if (rows.length === 0) return true;
        const last = await trx
          .selectFrom("scimkit_report_rows")
          .select((eb) => eb.fn.max("seq").as("seq"))
          .where("operation_id", "=", operationId)
          .executeTakeFirst();
        let seq = Number(last?.seq ?? 0);
        // Three parameters a row; a statement stays under the dialect's limit and a page's size.
        const size = Math.max(1, Math.min(REPORT_PAGE_ROWS, Math.floor(dialect.maxParameters / 3)));
        for (let start = 0; start < rows.length; start += size) {
          const chunk = rows.slice(start, start + size);
          await trx
            .insertInto("scimkit_report_rows")
            // JSON text in the row's own key order: the keys are the CSV columns.
            .values(chunk.map((row) => ({ operation_id: operationId, seq: ++seq, row: JSON.stringify(row) })))
            .execute();
        }
        return true;
      });
    },

    async startOperation(operation, admission) {
      const { now } = admission;
      return analyticsWriteTransaction(db, dialect, async (trx): Promise<ReportStart> => {
        // The organization's row lock serializes the admissions of one organization on PostgreSQL,
        // so two identical requests at once get one operation and a bound is never overshot
        // (SQLite's write transaction serializes every writer anyway).
        await lockRows(
          trx.selectFrom("scimkit_organizations").select("id").where("id", "=", operation.orgId),
          dialect,
          "update",
        ).executeTakeFirst();
        if (operation.requestKey !== undefined) {
          const reusable = await trx
            .selectFrom("scimkit_operations")
            .selectAll()
            .where("org_id", "=", operation.orgId)
            .where("request_key", "=", operation.requestKey)
            .where((eb) =>
              eb.and([
                alive(eb, now),
                eb.or([
                  eb("status", "in", ["queued", "running"]),
                  eb.and([eb("status", "=", "succeeded"), eb("finished_at", ">=", admission.freshSince)]),
                ]),
              ]),
            )
            .orderBy("created_at", "desc")
            .limit(1)
            .executeTakeFirst();
          if (reusable) return { outcome: "reused", operation: operationOf(reusable) };
        }
        const figures = await trx
          .selectFrom("scimkit_operations")
          .select((eb) => [
            eb.fn.sum<number | string | null>(eb.case().when("status", "in", ["queued", "running"]).then(1).else(0).end()).as("active"),
            eb.fn.sum<number | string | null>("progress_done").as("rows"),
            eb.fn.min<string | null>(eb.case().when("progress_done", ">", 0).then(eb.ref("expires_at")).end()).as("first_expiry"),
          ])
          .where("org_id", "=", operation.orgId)
          .where((eb) => alive(eb, now))
          .executeTakeFirst();
        if (Number(figures?.active ?? 0) >= admission.maxActive) return { outcome: "refused", bound: "active" };
        if (Number(figures?.rows ?? 0) >= admission.maxStoredRows) {
          const retryAt = figures?.first_expiry ?? undefined;
          return { outcome: "refused", bound: "rows", ...(retryAt === undefined || retryAt === null ? {} : { retryAt }) };
        }
        await insertOperation(trx, operation);
        return { outcome: "created", operation };
      });
    },

    async claimOperation(claim) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        let candidates = trx
          .selectFrom("scimkit_operations")
          .select("id")
          .where((eb) => claimable(eb, claim.now, claim.staleBefore));
        if (claim.id !== undefined) candidates = candidates.where("id", "=", claim.id);
        candidates = candidates.orderBy("created_at").orderBy("id").limit(1);
        // PostgreSQL: FOR UPDATE SKIP LOCKED, so pollers on several hosts each take a different job
        // and none waits on a row another is claiming (or appending to). SQLite has no row locks:
        // its write transaction (BEGIN IMMEDIATE) already admits one claimer at a time.
        const lock = dialect.rowLock("update");
        if (lock !== undefined) candidates = candidates.modifyEnd(sql`${lock} skip locked`);
        const candidate = await candidates.executeTakeFirst();
        if (!candidate) return undefined;
        // The claim rule again in the UPDATE itself: a compare-and-set, right under any isolation.
        const claimed = await trx
          .updateTable("scimkit_operations")
          .set((eb) => ({
            owner_id: claim.ownerId,
            heartbeat_at: claim.now,
            attempts: eb("attempts", "+", 1),
            progress_done: 0,
            progress_total: null,
          }))
          .where("id", "=", candidate.id)
          .where((eb) => claimable(eb, claim.now, claim.staleBefore))
          .returningAll()
          .executeTakeFirst();
        if (!claimed) return undefined;
        // From zero: an earlier owner's rows go in the claim's transaction, so none is ever stored twice.
        await trx.deleteFrom("scimkit_report_rows").where("operation_id", "=", candidate.id).execute();
        return operationOf(claimed);
      });
    },

    async heartbeatOperation(id, ownerId, now) {
      const result = await db
        .updateTable("scimkit_operations")
        .set({ heartbeat_at: now })
        .where("id", "=", id)
        .where("owner_id", "=", ownerId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async releaseOperation(id, ownerId) {
      await db
        .updateTable("scimkit_operations")
        // A claim given back is not an interrupted run: it leaves `attempts` as before it.
        .set((eb) => ({
          owner_id: null,
          heartbeat_at: null,
          attempts: sql<number>`case when ${eb.ref("attempts")} > 0 then ${eb.ref("attempts")} - 1 else 0 end`,
        }))
        .where("id", "=", id)
        .where("owner_id", "=", ownerId)
        .execute();
    },

    purgeExpiredOperations: (now, maxRows) => purgeExpiredOperations(db, now, maxRows),
  };
}
