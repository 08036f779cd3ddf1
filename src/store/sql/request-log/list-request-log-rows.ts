/**
 * `ReadableRequestLog.list` over `scimkit_request_log`: one organization's range of the primary
 * key read backwards from the cursor (or of the request-id or resource-id index when the query
 * names one), the other filters narrowing it as it is read.
 */
import type { Kysely } from "kysely";
import { checkRequestLogQuery } from "../../../request-log/check-request-log-query.js";
import type { RequestLogPage, RequestLogQuery } from "../../../request-log/readable-request-log.js";
import type { RequestLogEntry } from "../../../request-log/request-log.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { requestLogEntryOf } from "./request-log-row.js";

// The cursor is the `seq` of the previous page's last entry, a UUID v7 this log gave: it stays
// valid after that entry is deleted by retention (the page continues with what is older).
const SEQ = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** One page of `orgId`'s entries matching `query`, newest first; a `RangeError` for a malformed query. */
export async function listRequestLogRows(db: Kysely<SqlStoreDatabase>, orgId: string, query: RequestLogQuery): Promise<RequestLogPage> {
  const { limit, from, to } = checkRequestLogQuery(query);
  if (query.cursor !== undefined && !SEQ.test(query.cursor))
    throw new RangeError(`request log: cursor ${JSON.stringify(query.cursor)} is not one this log gave.`);
  let select = db.selectFrom("scimkit_request_log").selectAll().where("org_id", "=", orgId);
  if (query.cursor !== undefined) select = select.where("seq", "<", query.cursor);
  if (query.requestId !== undefined) select = select.where("request_id", "=", query.requestId);
  if (query.resourceId !== undefined) select = select.where("resource_id", "=", query.resourceId);
  if (query.identityProvider !== undefined) select = select.where("identity_provider", "=", query.identityProvider);
  if (query.statusClass !== undefined) {
    select = select.where("status", ">=", query.statusClass * 100).where("status", "<", (query.statusClass + 1) * 100);
  }
  if (from !== undefined) select = select.where("at_ms", ">=", from);
  if (to !== undefined) select = select.where("at_ms", "<", to);
  // One row more than the page tells whether an older match follows, as the memory log does.
  const rows = await select
    .orderBy("seq", "desc")
    .limit(limit + 1)
    .execute();
  const entries: RequestLogEntry[] = rows.slice(0, limit).map(requestLogEntryOf);
  const last = rows[limit - 1];
  return rows.length > limit && last !== undefined ? { entries, nextCursor: last.seq } : { entries };
}
