/**
 * The provisioning log of one organization: what the identity provider sent and what the service
 * answered, newest first, refreshed every few seconds; failures first or only on demand; one
 * entry's request and response side by side, its error explained, and a curl to replay it.
 */
import { useEffect, useState } from "preact/hooks";
import { type Query, seg } from "./api-client.js";
import { useApi } from "./context.js";
import { CopyButton } from "./copy-button.js";
import { curlOf } from "./curl-of.js";
import { ErrorNotice } from "./error-notice.js";
import { OrganizationPicker } from "./organization-picker.js";
import { when } from "./organization.js";
import type { RequestLogEntry, RequestLogList } from "./analytics-api-types.js";
import { IDENTITY_PROVIDERS, pretty, refusalText, shortPath, timeOf } from "./request-log-entry.js";
import { href, navigate, type Place } from "./router.js";
import { explain } from "./scim-error-explanations.js";
import { toError } from "./use-async.js";

const POLL_MS = 3000;
const STATUS_CHOICES = [
  { value: "", label: "All statuses" },
  { value: "failures", label: "Failures only (4xx and 5xx)" },
  { value: "2xx", label: "2xx success" },
  { value: "4xx", label: "4xx client errors" },
  { value: "5xx", label: "5xx server errors" },
] as const;

interface Filters {
  readonly org: string | undefined;
  readonly status: string;
  readonly idp: string;
  readonly requestId: string;
  readonly resourceId: string;
  readonly failuresFirst: boolean;
  readonly request: string | undefined;
}

function filtersOf(query: URLSearchParams): Filters {
  return {
    org: query.get("org") ?? undefined,
    status: query.get("status") ?? "",
    idp: query.get("idp") ?? "",
    requestId: query.get("requestId") ?? "",
    resourceId: query.get("resourceId") ?? "",
    failuresFirst: query.get("failuresFirst") === "1",
    request: query.get("request") ?? undefined,
  };
}

function hrefOf(filters: Filters): string {
  return href("/log", {
    org: filters.org,
    status: filters.status,
    idp: filters.idp,
    requestId: filters.requestId,
    resourceId: filters.resourceId,
    failuresFirst: filters.failuresFirst ? "1" : undefined,
    request: filters.request,
  });
}

/** Newest first, each request once. */
function merged(...lists: readonly (readonly RequestLogEntry[])[]): RequestLogEntry[] {
  const byId = new Map<string, RequestLogEntry>();
  for (const list of lists) for (const entry of list) if (!byId.has(entry.requestId)) byId.set(entry.requestId, entry);
  return [...byId.values()].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
}

export function RequestLogPage({ place }: { readonly place: Place }) {
  const api = useApi();
  const filters = filtersOf(place.query);
  const set = (change: Partial<Filters>, replace = false): void => navigate(hrefOf({ ...filters, ...change }), replace);
  const [entries, setEntries] = useState<readonly RequestLogEntry[]>([]);
  const [older, setOlder] = useState<{ entries: readonly RequestLogEntry[]; cursors: readonly (string | null)[] }>({
    entries: [],
    cursors: [],
  });
  const [error, setError] = useState<Error>();
  const [live, setLive] = useState(true);
  const [loadedAt, setLoadedAt] = useState<string>();
  const { org, status, idp, requestId, resourceId } = filters;
  const classes = status === "failures" ? ["4xx", "5xx"] : [status];

  const queryOf = (statusClass: string, cursor?: string): Query => ({
    status: statusClass,
    identityProvider: idp,
    requestId,
    resourceId,
    limit: 50,
    cursor,
  });
  useEffect(() => {
    setEntries([]);
    setOlder({ entries: [], cursors: [] });
    setError(undefined);
    if (org === undefined) return;
    let stopped = false;
    const load = async (): Promise<void> => {
      try {
        const pages = await Promise.all(
          classes.map((statusClass) => api.get<RequestLogList>(`/organizations/${seg(org)}/request-log`, queryOf(statusClass))),
        );
        if (stopped) return;
        setEntries(merged(...pages.map((page) => page.data)));
        setOlder((previous) => (previous.cursors.length > 0 ? previous : { entries: [], cursors: pages.map((page) => page.nextCursor) }));
        setLoadedAt(new Date().toLocaleTimeString());
        setError(undefined);
      } catch (caught) {
        if (!stopped) setError(toError(caught));
      }
    };
    void load();
    const timer = live ? setInterval(load, POLL_MS) : undefined;
    return () => {
      stopped = true;
      if (timer) clearInterval(timer);
    };
  }, [api, org, status, idp, requestId, resourceId, live]);

  const loadOlder = async (): Promise<void> => {
    if (org === undefined) return;
    try {
      const pages = await Promise.all(
        classes.map((statusClass, index) => {
          const cursor = older.cursors[index];
          return cursor ? api.get<RequestLogList>(`/organizations/${seg(org)}/request-log`, queryOf(statusClass, cursor)) : undefined;
        }),
      );
      setOlder({
        entries: merged(older.entries, ...pages.map((page) => page?.data ?? [])),
        cursors: pages.map((page) => page?.nextCursor ?? null),
      });
    } catch (caught) {
      setError(toError(caught));
    }
  };

  let rows = merged(entries, older.entries);
  if (filters.failuresFirst) rows = [...rows.filter((entry) => entry.status >= 400), ...rows.filter((entry) => entry.status < 400)];
  const selected = filters.request === undefined ? undefined : rows.find((entry) => entry.requestId === filters.request);

  return (
    <>
      <h1>Provisioning log</h1>
      <form class="filters" onSubmit={(event) => event.preventDefault()} aria-label="Filters">
        <OrganizationPicker id="log-org" value={org} onChange={(orgId) => navigate(href("/log", { org: orgId }))} />
        <div class="field">
          <label for="log-status">Status</label>
          <select id="log-status" value={status} onChange={(event) => set({ status: event.currentTarget.value, request: undefined })}>
            {STATUS_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="log-idp">Identity provider</label>
          <select id="log-idp" value={idp} onChange={(event) => set({ idp: event.currentTarget.value })}>
            <option value="">Any</option>
            {IDENTITY_PROVIDERS.map((provider) => (
              <option key={provider} value={provider}>
                {provider}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="log-request-id">Request id</label>
          <input id="log-request-id" value={requestId} onChange={(event) => set({ requestId: event.currentTarget.value.trim() }, true)} />
        </div>
        <div class="field">
          <label for="log-resource-id">Resource id</label>
          <input
            id="log-resource-id"
            value={resourceId}
            onChange={(event) => set({ resourceId: event.currentTarget.value.trim() }, true)}
          />
        </div>
        <div class="check">
          <input
            id="log-failures-first"
            type="checkbox"
            checked={filters.failuresFirst}
            onChange={(event) => set({ failuresFirst: event.currentTarget.checked }, true)}
          />
          <label for="log-failures-first">Failures first</label>
        </div>
        <div class="check">
          <input id="log-live" type="checkbox" checked={live} onChange={(event) => setLive(event.currentTarget.checked)} />
          <label for="log-live">Live (refresh every {POLL_MS / 1000} s)</label>
        </div>
      </form>
      <ErrorNotice error={error} />
      {org === undefined ? (
        <p>Choose an organization to see the requests its identity provider sent.</p>
      ) : (
        <div class={selected ? "split" : ""}>
          <div>
            <p class="hint" aria-live="polite">
              {rows.length} requests{loadedAt ? `, updated ${loadedAt}` : ""}
            </p>
            <section class="table-wrap" aria-label="Requests">
              <table class="log">
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Status</th>
                    <th scope="col">Request</th>
                    <th scope="col" class="wide-only">
                      Provider
                    </th>
                    <th scope="col" class="wide-only">
                      Duration
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((entry) => (
                    <tr
                      key={entry.requestId}
                      class={`${entry.status >= 400 ? "failed" : ""} ${entry.requestId === filters.request ? "selected" : ""}`}
                    >
                      <td>
                        <time dateTime={entry.at} title={when(entry.at)}>
                          {timeOf(entry.at)}
                        </time>
                      </td>
                      <td>
                        <span class={`status s${Math.floor(entry.status / 100)}`}>{entry.status}</span>
                        {entry.scimType ? <span class="scim-type"> {entry.scimType}</span> : null}
                      </td>
                      <td>
                        <button
                          type="button"
                          class="link"
                          aria-pressed={entry.requestId === filters.request}
                          onClick={() => set({ request: entry.requestId })}
                        >
                          <span class="method">{entry.method}</span> {shortPath(entry.path)}
                        </button>
                      </td>
                      <td class="wide-only">{entry.identityProvider}</td>
                      <td class="wide-only">{entry.durationMs.toFixed(1)} ms</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
            {older.cursors.some((cursor) => cursor) ? (
              <button type="button" class="secondary" onClick={loadOlder}>
                Load older requests
              </button>
            ) : null}
          </div>
          {selected ? <EntryDetail entry={selected} onClose={() => set({ request: undefined })} /> : null}
          {filters.request !== undefined && !selected && rows.length > 0 ? (
            <p>
              Request {filters.request} is not among those loaded;{" "}
              <a href={hrefOf({ ...filters, requestId: filters.request })}>search for it by id</a>.
            </p>
          ) : null}
        </div>
      )}
    </>
  );
}

function EntryDetail({ entry, onClose }: { readonly entry: RequestLogEntry; readonly onClose: () => void }) {
  const explanation = explain(entry.status, entry.scimType);
  const curl = curlOf(entry);
  return (
    <section class="detail panel" aria-labelledby="entry-title" data-testid="entry-detail">
      <div class="detail-head">
        <h2 id="entry-title">
          {entry.method} {shortPath(entry.path)} → {entry.status}
        </h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <dl class="facts">
        <dt>Request id</dt>
        <dd>
          <code>{entry.requestId}</code>
        </dd>
        <dt>Time</dt>
        <dd>{when(entry.at)}</dd>
        <dt>Identity provider</dt>
        <dd>
          {entry.identityProvider}
          {entry.userAgent ? <span class="hint"> ({entry.userAgent})</span> : null}
        </dd>
        <dt>Resource</dt>
        <dd>
          {entry.resourceType ?? "—"} {entry.resourceId ? <code>{entry.resourceId}</code> : null}
        </dd>
        <dt>Token</dt>
        <dd>{entry.authenticated ? <code>{entry.tokenId ?? "verified"}</code> : "not verified"}</dd>
        <dt>Client</dt>
        <dd>{entry.clientAddress ?? "—"}</dd>
        {entry.bulkOperations === undefined ? null : (
          <>
            <dt>Bulk operations</dt>
            <dd>{entry.bulkOperations}</dd>
          </>
        )}
      </dl>
      {explanation ? (
        <div class="explanation" data-testid="explanation">
          <h3>
            What went wrong
            {entry.scimType ? (
              <>
                {" "}
                (scimType <code>{entry.scimType}</code>)
              </>
            ) : null}
          </h3>
          {entry.detail ? <p class="scim-detail">“{entry.detail}”</p> : null}
          <p>{explanation.meaning}</p>
          <p>
            <strong>What the identity provider expects:</strong> {explanation.expects}
          </p>
        </div>
      ) : null}
      <div class="bodies">
        <figure>
          <figcaption>Request{entry.requestBodyTruncated ? " (truncated)" : ""}</figcaption>
          {entry.requestBodyRefused === undefined ? null : (
            <p data-testid="request-body-refused">{refusalText(entry.requestBodyRefused)}</p>
          )}
          <pre data-testid="request-body">{entry.requestBody === undefined ? "(no body kept)" : pretty(entry.requestBody)}</pre>
        </figure>
        <figure>
          <figcaption>Response{entry.responseBodyTruncated ? " (truncated)" : ""}</figcaption>
          <pre data-testid="response-body">{entry.responseBody === undefined ? "(no body kept)" : pretty(entry.responseBody)}</pre>
        </figure>
      </div>
      <details>
        <summary>Copy as curl</summary>
        <pre data-testid="curl">{curl}</pre>
      </details>
      <CopyButton text={curl} label="Copy as curl" />
    </section>
  );
}
