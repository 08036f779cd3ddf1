/**
 * Asynchronous operations (spec §4.6): poll one, and download the report of a succeeded one as
 * a JSON array or CSV, streamed (our addition: the download itself).
 */
import { notFound, operationNotFinished } from "../analytics-problem.js";
import type { AnalyticsCall, AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { Operation, OperationStore } from "../analytics-store.js";
import { renderOperation } from "../render-resources.js";
import { sendJson } from "../send-json.js";
import { streamReport, type ReportFormat } from "../stream-report.js";

function lifetime(milliseconds: number): string {
  const hours = milliseconds / 3_600_000;
  if (hours === 1) return "1 hour";
  return hours > 1 ? `${Number.isInteger(hours) ? hours : hours.toFixed(1)} hours` : `${Math.round(milliseconds / 1000)} seconds`;
}

/** The handlers of the operation poll and download. */
export function operationHandlers(
  dependencies: AnalyticsDependencies<OperationStore>,
): Pick<AnalyticsHandlers, "getOperation" | "getOperationResult"> {
  const { store } = dependencies;

  async function operationOf(call: AnalyticsCall): Promise<Operation> {
    const operation = await store.getOperation(call.scope, call.params["id"] ?? "");
    // Expired is gone, whether or not the purge has reached it yet: 404, not 410 (RFC 9110
    // §15.5.11), because after the purge nothing remembers the id to say 410 with, and an answer
    // that changed with the purge's progress would tell nothing a client could rely on.
    const expired = operation?.expiresAt !== undefined && operation.expiresAt <= dependencies.now().toISOString();
    if (operation === undefined || expired) {
      throw notFound(
        `There is no operation with this id among those you may see. Operations and their reports are kept ${lifetime(dependencies.reports.ttlMs)} after they are requested; request the report again.`,
      );
    }
    return operation;
  }

  /** `format` wins; otherwise the Accept header (RFC 9110 §12.5.1), JSON when it prefers neither. */
  function formatOf(call: AnalyticsCall): ReportFormat {
    const format = call.query["format"];
    if (format === "csv" || format === "json") return format;
    return call.request.accepts(["application/json", "text/csv"]) === "text/csv" ? "csv" : "json";
  }

  return {
    async getOperation(call) {
      sendJson(call.response, 200, renderOperation(await operationOf(call), call.baseUrl));
    },

    async getOperationResult(call) {
      const operation = await operationOf(call);
      if (operation.status !== "succeeded") {
        throw operationNotFinished(
          operation.status === "failed"
            ? `The operation failed, so it has no result: ${operation.error ?? "no reason was recorded"}`
            : `The operation is ${operation.status}: poll ${call.baseUrl}/operations/${operation.id} until its status is succeeded.`,
        );
      }
      await streamReport(call.response, store, operation, formatOf(call));
    },
  };
}
