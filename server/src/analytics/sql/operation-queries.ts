/**
 * Report operations and their rows in SQL (`scimkit_operations`, `scimkit_report_rows`). Rows
 * are appended in numbered order and read back a page at a time by that number, so a report of
 * 100,000 learners is written and streamed without ever being held whole.
 */
import { type ExpressionBuilder, type Kysely, type Selectable, type Updateable, sql } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";
import { withRowLock } from "./with-row-lock.js";
import type { AnalyticsDatabase, OperationsTable } from "./analytics-tables.js";
import type { AnalyticsStore, Operation, OperationStatus, ReportRow, ReportStart } from "../analytics-store.js";
import { scopeOrgIds } from "./scope-org-ids.js";

/** Report rows per read of `readReportRows`, and most rows per insert of `appendReportRows`. */
export const REPORT_PAGE_ROWS = 1000;

function operationOf(row: Selectable<OperationsTable>): Operation {
  return {
    id: row.id,
    kind: row.kind,
    orgId: row.org_id,
    subjectId: row.subject_id,
    status: row.status as OperationStatus,
    progress: { done: Number(row.progress_done), ...(row.progress_total === null ? {} : { total: Number(row.progress_total) }) },
    createdAt: row.created_at,
    ...(row.started_at === null ? {} : { startedAt: row.started_at }),
    ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.request_key === null ? {} : { requestKey: row.request_key }),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    ...(row.owner_id === null ? {} : { ownerId: row.owner_id }),
    ...(row.heartbeat_at === null ? {} : { heartbeatAt: row.heartbeat_at }),
    ...(Number(row.attempts) === 0 ? {} : { attempts: Number(row.attempts) }),
  };
}

type OperationsExpression = ExpressionBuilder<AnalyticsDatabase, "scimkit_operations">;

/** Unexpired at `now` (no expiry: kept). */
function alive(eb: OperationsExpression, now: string) {
  return eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]);
}

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

/** The operation members of `AnalyticsStore` over `db`. */
export function operationQueries(
  db: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
): Pick<
  AnalyticsStore,
  | "createOperation"
  | "getOperation"
  | "updateOperation"
  | "appendReportRows"
  | "readReportRows"
  | "startOperation"
  | "claimOperation"
  | "heartbeatOperation"
  | "releaseOperation"
  | "purgeExpiredOperations"
> {
  const insertOperation = async (trx: Kysely<AnalyticsDatabase>, operation: Operation): Promise<void> => {
    await trx
      .insertInto("scimkit_operations")
      .values({
        id: operation.id,
        org_id: operation.orgId,
        kind: operation.kind,
        subject_id: operation.subjectId,
        status: operation.status,
        progress_done: operation.progress.done,
        progress_total: operation.progress.total ?? null,
        created_at: operation.createdAt,
        started_at: operation.startedAt ?? null,
        finished_at: operation.finishedAt ?? null,
        error: operation.error ?? null,
        request_key: operation.requestKey ?? null,
        expires_at: operation.expiresAt ?? null,
        owner_id: operation.ownerId ?? null,
        heartbeat_at: operation.heartbeatAt ?? null,
        attempts: operation.attempts ?? 0,
      })
      .execute();
  };

  return {
    async createOperation(operation) {
      await insertOperation(db, operation);
    },

    async getOperation(scope, id) {
      const ids = scopeOrgIds(scope);
      if (ids?.length === 0) return undefined;
      let query = db.selectFrom("scimkit_operations").selectAll().where("id", "=", id);
      if (ids !== undefined) query = query.where("org_id", "in", ids);
      const row = await query.executeTakeFirst();
      return row ? operationOf(row) : undefined;
    },

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
        const operation = await withRowLock(
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
        await withRowLock(
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

    async purgeExpiredOperations(now, maxRows) {
      let deleted = 0;
      const expired = await db
        .selectFrom("scimkit_operations")
        .select("id")
        .where("expires_at", "<=", now)
        .orderBy("expires_at")
        .limit(Math.max(1, maxRows))
        .execute();
      for (const { id } of expired) {
        if (deleted >= maxRows) break;
        const budget = maxRows - deleted;
        // A slice of the rows by seq (the primary key's order): each statement deletes at most
        // `budget` rows, so the purge never holds a long write lock (SQLite) or a huge transaction.
        const first = await db
          .selectFrom("scimkit_report_rows")
          .select((eb) => eb.fn.min("seq").as("seq"))
          .where("operation_id", "=", id)
          .executeTakeFirst();
        if (first?.seq !== null && first?.seq !== undefined) {
          const rows = await db
            .deleteFrom("scimkit_report_rows")
            .where("operation_id", "=", id)
            .where("seq", "<", Number(first.seq) + budget)
            .executeTakeFirst();
          deleted += Number(rows.numDeletedRows);
          if (deleted >= maxRows) break;
        }
        // No rows left (the cascade would take any appended meanwhile).
        const operation = await db.deleteFrom("scimkit_operations").where("id", "=", id).where("expires_at", "<=", now).executeTakeFirst();
        deleted += Number(operation.numDeletedRows);
      }
      return deleted;
    },

    async *readReportRows(operationId) {
      let after = 0;
      for (;;) {
        // Keyset by seq over the primary key: each page is one index range, however deep.
        const page = await db
          .selectFrom("scimkit_report_rows")
          .select(["seq", "row"])
          .where("operation_id", "=", operationId)
          .where("seq", ">", after)
          .orderBy("seq")
          .limit(REPORT_PAGE_ROWS)
          .execute();
        const last = page[page.length - 1];
        if (last === undefined) return;
        yield page.map((entry) => JSON.parse(entry.row) as ReportRow);
        if (page.length < REPORT_PAGE_ROWS) return;
        after = Number(last.seq);
      }
    },
  };
}
