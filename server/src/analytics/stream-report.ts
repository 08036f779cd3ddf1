/**
 * Downloads a report as it is read: `readReportRows` yields a page at a time and each page is
 * written before the next is read, waiting for the client to drain the socket, so the report is
 * never held in memory whole — as a JSON array or as CSV.
 */
import type { Response } from "express";
import type { Operation, OperationStore, ReportRow } from "./analytics-store.js";
import { drainedOrClosed } from "./drained-or-closed.js";
import { csvLine } from "./csv-line.js";
import { reportKinds } from "./report-kinds.js";
import { setBodyHeaders } from "./send-json.js";

/** How the report is written. */
export type ReportFormat = "json" | "csv";

/** Writes `chunk`; resolves false once the client has gone, so the reader stops. */
async function write(response: Response, chunk: string): Promise<boolean> {
  if (response.destroyed) return false;
  if (response.write(chunk)) return true;
  // Back-pressure: the next page is read only once the client has taken this one — or has gone,
  // which would never drain.
  await drainedOrClosed(response);
  return !response.destroyed;
}

/**
 * Streams the rows of the succeeded `operation` with status 200. Errors after the first byte
 * reject; the caller passes them to Express, which ends the connection (the client then sees a
 * truncated body rather than a complete-looking one).
 */
export async function streamReport(
  response: Response,
  store: Pick<OperationStore, "readReportRows">,
  operation: Operation,
  format: ReportFormat,
): Promise<void> {
  const fileName = `${operation.kind}-${operation.id}.${format}`;
  response.statusCode = 200;
  response.setHeader("Content-Disposition", `attachment; filename="${fileName}"`);
  response.setHeader("Cache-Control", "no-store");
  let columns = reportKinds[operation.kind]?.columns;
  let first = true;
  if (format === "csv") {
    // RFC 4180 §3: the header parameter says the first line names the columns.
    setBodyHeaders(response, "text/csv; charset=utf-8; header=present");
    if (columns !== undefined && !(await write(response, csvLine(columns)))) return;
  } else {
    setBodyHeaders(response, "application/json; charset=utf-8");
    if (!(await write(response, "["))) return;
  }
  for await (const rows of store.readReportRows(operation.id)) {
    if (rows.length === 0) continue;
    // A kind this version does not know (written by a newer process): its first row names the columns.
    if (columns === undefined) {
      columns = Object.keys(rows[0] as ReportRow);
      if (format === "csv" && !(await write(response, csvLine(columns)))) return;
    }
    const known = columns;
    const text =
      format === "csv"
        ? rows.map((row) => csvLine(known.map((column) => row[column] ?? null))).join("")
        : rows
            .map((row) => {
              const ordered = Object.fromEntries(known.map((column) => [column, row[column] ?? null]));
              const line = `${first ? "\n" : ",\n"}${JSON.stringify(ordered)}`;
              first = false;
              return line;
            })
            .join("");
    if (!(await write(response, text))) return;
  }
  if (format === "json") await write(response, first ? "]" : "\n]");
  response.end();
}
