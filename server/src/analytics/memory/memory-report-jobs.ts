/**
 * The report-job members of the memory store: admission (dedupe and bounds), claims with
 * heartbeats and takeover, fenced writes and the purge of expired operations, over the store's
 * own maps. One process holds them, so each method is atomic by running without an `await`.
 */
import type { Operation, OperationUpdate, ReportJobStore, ReportRow } from "../analytics-store.js";
import { plainCopy } from "./plain-copy.js";

/** Unexpired at `now`: an operation without `expiresAt` never expires. */
function alive(operation: Operation, now: string): boolean {
  return operation.expiresAt === undefined || operation.expiresAt > now;
}

function active(operation: Operation): boolean {
  return operation.status === "queued" || operation.status === "running";
}

/** The claim rule of `AnalyticsStore.claimOperation`. */
function claimable(operation: Operation, now: string, staleBefore: string): boolean {
  if (!alive(operation, now) || !active(operation)) return false;
  if (operation.heartbeatAt === undefined) return operation.status === "running" || operation.ownerId === undefined;
  return operation.heartbeatAt < staleBefore;
}

/** Without the claim fields, so a release or a takeover leaves no trace of the old owner. */
function unowned(operation: Operation): Operation {
  const { ownerId: _ownerId, heartbeatAt: _heartbeatAt, ...rest } = operation;
  return rest;
}

/** The memory store's report-job methods over its `operations` and `reportRows` maps. */
export function memoryReportJobs(operations: Map<string, Operation>, reportRows: Map<string, ReportRow[]>): ReportJobStore {
  const holds = (id: string, ownerId: string | undefined): Operation | undefined => {
    const current = operations.get(id);
    return current === undefined || (ownerId !== undefined && current.ownerId !== ownerId) ? undefined : current;
  };

  return {
    async updateOperation(id: string, update: OperationUpdate, ownerId?: string) {
      const current = holds(id, ownerId);
      if (current === undefined) return false;
      // plainCopy drops the fields an update leaves undefined, so they keep their current values.
      operations.set(id, { ...current, ...plainCopy(update) });
      return true;
    },

    async appendReportRows(operationId, rows, ownerId) {
      // A report of an operation deleted meanwhile (its organization went, or it expired) has nowhere to go.
      if (holds(operationId, ownerId) === undefined) return false;
      let stored = reportRows.get(operationId);
      if (stored === undefined) {
        stored = [];
        reportRows.set(operationId, stored);
      }
      for (const row of rows) stored.push(plainCopy(row));
      return true;
    },

    async startOperation(operation, admission) {
      const { now } = admission;
      let activeCount = 0;
      let storedRows = 0;
      let reusable: Operation | undefined;
      let firstExpiry: string | undefined;
      for (const existing of operations.values()) {
        if (existing.orgId !== operation.orgId || !alive(existing, now)) continue;
        if (active(existing)) activeCount += 1;
        storedRows += existing.progress.done;
        if (
          existing.progress.done > 0 &&
          existing.expiresAt !== undefined &&
          (firstExpiry === undefined || existing.expiresAt < firstExpiry)
        )
          firstExpiry = existing.expiresAt;
        const fresh =
          active(existing) ||
          (existing.status === "succeeded" && existing.finishedAt !== undefined && existing.finishedAt >= admission.freshSince);
        if (operation.requestKey !== undefined && existing.requestKey === operation.requestKey && fresh) {
          if (reusable === undefined || existing.createdAt > reusable.createdAt) reusable = existing;
        }
      }
      if (reusable !== undefined) return { outcome: "reused", operation: plainCopy(reusable) };
      if (activeCount >= admission.maxActive) return { outcome: "refused", bound: "active" };
      if (storedRows >= admission.maxStoredRows)
        return { outcome: "refused", bound: "rows", ...(firstExpiry === undefined ? {} : { retryAt: firstExpiry }) };
      if (operations.has(operation.id)) throw new Error(`memoryAnalyticsStore: operation ${operation.id} exists`);
      operations.set(operation.id, plainCopy(operation));
      return { outcome: "created", operation: plainCopy(operation) };
    },

    async claimOperation(claim) {
      let chosen: Operation | undefined;
      if (claim.id !== undefined) {
        const candidate = operations.get(claim.id);
        if (candidate !== undefined && claimable(candidate, claim.now, claim.staleBefore)) chosen = candidate;
      } else {
        for (const candidate of operations.values()) {
          if (!claimable(candidate, claim.now, claim.staleBefore)) continue;
          if (
            chosen === undefined ||
            candidate.createdAt < chosen.createdAt ||
            (candidate.createdAt === chosen.createdAt && candidate.id < chosen.id)
          )
            chosen = candidate;
        }
      }
      if (chosen === undefined) return undefined;
      // From zero: whatever an earlier owner appended goes, so no row is ever there twice.
      reportRows.delete(chosen.id);
      const claimed: Operation = {
        ...unowned(chosen),
        progress: { done: 0 },
        ownerId: claim.ownerId,
        heartbeatAt: claim.now,
        attempts: (chosen.attempts ?? 0) + 1,
      };
      operations.set(chosen.id, claimed);
      return plainCopy(claimed);
    },

    async heartbeatOperation(id, ownerId, now) {
      const current = holds(id, ownerId);
      if (current === undefined) return false;
      operations.set(id, { ...current, heartbeatAt: now });
      return true;
    },

    async releaseOperation(id, ownerId) {
      const current = holds(id, ownerId);
      if (current === undefined) return;
      const attempts = Math.max(0, (current.attempts ?? 0) - 1);
      const { attempts: _attempts, ...rest } = unowned(current);
      operations.set(id, attempts === 0 ? rest : { ...rest, attempts });
    },

    async purgeExpiredOperations(now, maxRows) {
      let deleted = 0;
      for (const [id, operation] of operations) {
        if (deleted >= maxRows) break;
        if (alive(operation, now)) continue;
        const rows = reportRows.get(id) ?? [];
        const take = Math.min(rows.length, maxRows - deleted);
        rows.splice(0, take);
        deleted += take;
        if (rows.length > 0) break;
        reportRows.delete(id);
        operations.delete(id);
        deleted += 1;
      }
      return deleted;
    },
  };
}
