/**
 * The operations of the memory analytics store: stored and read here, their report jobs
 * (admission, claims, fenced writes, purge) in `memoryReportJobs`.
 */
import type { OperationStore } from "../analytics-store.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";
import { sees } from "./memory-scope.js";
import { memoryReportJobs } from "./memory-report-jobs.js";
import { plainCopy } from "./plain-copy.js";

/** Rows per page of `readReportRows`, the size the report job appends in. */
const REPORT_PAGE = 1000;

/** The `OperationStore` of the memory analytics store over `state`. */
export function memoryOperations(state: MemoryAnalyticsState): OperationStore {
  const { operations, reportRows } = state;
  return {
    async createOperation(operation) {
      if (operations.has(operation.id)) throw new Error(`memoryAnalyticsStore: operation ${operation.id} exists`);
      operations.set(operation.id, plainCopy(operation));
    },

    async getOperation(scope, id) {
      const operation = operations.get(id);
      return operation !== undefined && sees(scope, operation.orgId) ? plainCopy(operation) : undefined;
    },

    ...memoryReportJobs(operations, reportRows),

    async *readReportRows(operationId) {
      for (let start = 0; ; start += REPORT_PAGE) {
        // Looked up on every page, so rows appended while reading are read too.
        const page = (reportRows.get(operationId) ?? []).slice(start, start + REPORT_PAGE);
        if (page.length === 0) return;
        yield page.map(plainCopy);
      }
    },
  };
}
