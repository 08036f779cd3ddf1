/**
 * The provisioning log of an organization (issue 18: addition to spec §4.6): what its identity
 * provider sent and what the service answered, read from the host's `ReadableRequestLog` by the
 * operator and the organization's admins — the same scope as every `/organizations/{id}/…` route.
 * And the sample of requests that came without a valid token (issue 27), kept apart from every
 * organization's log: the operator's alone, since they are outsiders' and may name any organization.
 *
 * The log's own cursor travels inside the interface's sealed cursor (page-cursor.ts) rather than
 * as it is: a cursor then holds only with the organization and filters it was given for (replayed
 * with others it is 400 `invalid-cursor`, as on every other list, instead of silently continuing
 * a different list from an arbitrary point), and a log swapped behind the router (memory for SQL)
 * meets only cursors the router vouches for.
 */
import type {
  IdentityProvider,
  ReadableRequestLog,
  RequestLogEntry,
  RequestLogQuery,
  StatusClass,
  UnauthenticatedRequestLogEntry,
} from "scimkit/request-log";
import { invalidCursor, invalidRequest, notFound } from "../analytics-problem.js";
import type { AnalyticsCall, AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { OrganizationStore } from "../analytics-store.js";
import type { Page, PageRequest } from "../analytics-store.js";
import { organizationHealth } from "../organization-health.js";
import { sendJson } from "../send-json.js";

type RequestLogHandlers = Pick<AnalyticsHandlers, "listOrganizationRequestLog" | "listUnauthenticatedRequestLog" | "getOrganizationHealth">;

const noSuchOrganization = (): Error => notFound("There is no organization with this id among those you may see.");

const noLog = (): Error =>
  notFound(
    "This host keeps no provisioning log, so there are no requests to show: it is configured with the `requestLog` option of the analytics router (on the scimkit host, SCIMKIT_REQUEST_LOG).",
  );

/** The members of `RequestLogQuery` a `RangeError` may name, and the query parameter of each. */
const PARAMETER_OF_MEMBER: Readonly<Record<string, string>> = {
  from: "from",
  to: "to",
  statusClass: "status",
  resourceId: "resourceId",
  identityProvider: "identityProvider",
  requestId: "requestId",
  limit: "limit",
  cursor: "cursor",
  orgId: "organizationId",
};

/**
 * The 400 for a query the log refused (`ReadableRequestLog.list` throws a `RangeError` naming the
 * member). The parameter is the member named first in the message: a message about `limit` may
 * mention "from 1 to 1,000" after it.
 */
function refusedQuery(error: RangeError): Error {
  let first: { readonly parameter: string; readonly at: number } | undefined;
  for (const [member, parameter] of Object.entries(PARAMETER_OF_MEMBER)) {
    const at = error.message.search(new RegExp(`\\b${member}\\b`));
    if (at >= 0 && (first === undefined || at < first.at)) first = { parameter, at };
  }
  // A cursor the router sealed but the log no longer takes (the host changed its log): the same
  // answer as any cursor that is not this query's.
  if (first?.parameter === "cursor") return invalidCursor();
  const message = error.message.replace(/^request log:\s*/i, "");
  return invalidRequest([{ field: first?.parameter ?? "query", message }]);
}

/** The log's query from the validated parameters (their schemas already checked each value). */
function logQueryOf(query: AnalyticsCall["query"]): RequestLogQuery {
  const text = (name: string): string | undefined => (typeof query[name] === "string" ? (query[name] as string) : undefined);
  const from = text("from");
  const to = text("to");
  // Half-open [from, to): a `to` not after `from` can match nothing, which is a mistake to point at.
  // A time the schema let through but that does not parse is the log's to refuse, naming it.
  const fromTime = from === undefined ? Number.NaN : Date.parse(from);
  const toTime = to === undefined ? Number.NaN : Date.parse(to);
  if (!Number.isNaN(fromTime) && !Number.isNaN(toTime) && toTime <= fromTime) {
    throw invalidRequest([{ field: "to", message: "must be later than from (the range is from ≤ time < to)" }]);
  }
  const status = text("status");
  const resourceId = text("resourceId");
  const identityProvider = text("identityProvider");
  const requestId = text("requestId");
  return {
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(status === undefined ? {} : { statusClass: Number(status.charAt(0)) as StatusClass }),
    ...(resourceId === undefined ? {} : { resourceId }),
    ...(identityProvider === undefined ? {} : { identityProvider: identityProvider as IdentityProvider }),
    ...(requestId === undefined ? {} : { requestId }),
  };
}

/** The members of `entry` named in `members` that it has, in that order: nothing else a log keeps reaches a client. */
function picked<T extends object>(entry: T, members: readonly (keyof T & string)[]): Record<string, unknown> {
  const rendered: Record<string, unknown> = {};
  for (const name of members) if (entry[name] !== undefined) rendered[name] = entry[name];
  return rendered;
}

const UNAUTHENTICATED_MEMBERS = [
  "requestId",
  "orgId",
  "at",
  "method",
  "path",
  "status",
  "scimType",
  "detail",
  "durationMs",
  "clientAddress",
  "userAgent",
  "identityProvider",
] as const satisfies readonly (keyof UnauthenticatedRequestLogEntry)[];

const ENTRY_MEMBERS = [
  "requestId",
  "orgId",
  "at",
  "method",
  "path",
  "status",
  "scimType",
  "detail",
  "durationMs",
  "authenticated",
  "tokenId",
  "clientAddress",
  "userAgent",
  "identityProvider",
  "resourceType",
  "resourceId",
  "bulkOperations",
  "requestBody",
  "requestBodyTruncated",
  "requestBodyRefused",
  "responseBody",
  "responseBodyTruncated",
] as const satisfies readonly (keyof RequestLogEntry)[];

/**
 * An entry as the interface documents it (`RequestLogEntry` schema): the members of the
 * interface, picked one by one, so whatever else a log keeps beside them never reaches a client.
 */
export function renderRequestLogEntry(entry: RequestLogEntry): Record<string, unknown> {
  return picked(entry, ENTRY_MEMBERS);
}

/** An unauthenticated entry as the interface documents it (`UnauthenticatedRequestLogEntry` schema), picked as `renderRequestLogEntry` does. */
function renderUnauthenticatedEntry(entry: UnauthenticatedRequestLogEntry): Record<string, unknown> {
  return picked(entry, UNAUTHENTICATED_MEMBERS);
}

/** One page of a log, asked with the interface's limit and cursor; a query the log refuses is a 400. */
async function readLogPage<Listed>(
  page: PageRequest,
  read: (paging: { readonly limit: number; readonly cursor?: string }) => Promise<Listed>,
): Promise<Listed> {
  try {
    return await read({ limit: page.limit, ...(page.after === undefined ? {} : { cursor: page.after }) });
  } catch (error) {
    if (error instanceof RangeError) throw refusedQuery(error);
    throw error;
  }
}

/** A log's page as `sendPage` takes it. */
function itemsOf<Entry>(listed: { readonly entries: readonly Entry[]; readonly nextCursor?: string }): Page<Entry> {
  return { items: listed.entries, ...(listed.nextCursor === undefined ? {} : { next: listed.nextCursor }) };
}

/** The handlers of the provisioning-log operations; `log` is the router's `requestLog`. */
export function requestLogHandlers(
  dependencies: AnalyticsDependencies<OrganizationStore>,
  log: ReadableRequestLog | undefined,
): RequestLogHandlers {
  const { store } = dependencies;
  return {
    async listOrganizationRequestLog(call) {
      // First: without a log every organization answers alike, so this reveals no organization.
      if (log === undefined) throw noLog();
      const organization = await store.getOrganization(call.scope, call.params["id"] ?? "");
      if (organization === undefined) throw noSuchOrganization();
      const query = logQueryOf(call.query);
      const listed = await readLogPage(call.page(), (paging) => log.list(organization.id, { ...query, ...paging }));
      call.sendPage(itemsOf(listed), renderRequestLogEntry);
    },

    async getOrganizationHealth(call) {
      if (log === undefined) throw noLog();
      const organization = await store.getOrganization(call.scope, call.params["id"] ?? "");
      if (organization === undefined) throw noSuchOrganization();
      sendJson(call.response, 200, await organizationHealth(log, dependencies.scimTokens, organization.id, dependencies.now()));
    },

    async listUnauthenticatedRequestLog(call) {
      const listUnauthenticated = log?.listUnauthenticated?.bind(log);
      if (listUnauthenticated === undefined) throw noLog();
      const orgId = call.query["organizationId"];
      const listed = await readLogPage(call.page(), (paging) =>
        listUnauthenticated({ ...(typeof orgId === "string" ? { orgId } : {}), ...paging }),
      );
      call.sendPage(itemsOf(listed), renderUnauthenticatedEntry, { dropped: listed.dropped, droppedSince: listed.droppedSince });
    },
  };
}
