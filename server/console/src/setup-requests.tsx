/**
 * The setup page's last step, "waiting for your identity provider": the organization's SCIM
 * requests as they arrive, read again 2 seconds after each answer while the page is open; a failed
 * one explained, with what to change in the provider's own admin screen.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { SetupRequestList } from "./analytics-api-types.js";
import { type ApiClient, ApiError } from "./api-client.js";
import { ErrorNotice } from "./error-notice.js";
import { PROVIDER_GUIDES, type ProviderGuide } from "./identity-provider-fields.js";
import { when } from "./organization.js";
import { shortPath, timeOf } from "./request-log-entry.js";
import { changeInProvider, explain } from "./scim-error-explanations.js";
import { toError } from "./use-async.js";

type SetupRequest = SetupRequestList["data"][number];

const POLL_MS = 2000;
/** The server answers the latest 20; the page keeps what it saw, so a failure is not pushed off by the requests after it. */
const KEEP = 100;

/** Newest first, each request once. */
function merged(newer: readonly SetupRequest[], older: readonly SetupRequest[]): SetupRequest[] {
  const byId = new Map<string, SetupRequest>();
  for (const request of [...newer, ...older]) if (!byId.has(request.requestId)) byId.set(request.requestId, request);
  return [...byId.values()].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, KEEP);
}

/** The path as its reader would type it: `filter=userName eq "…"`, not `filter=userName%20eq%20%22…%22`. */
function readablePath(path: string): string {
  const short = shortPath(path);
  try {
    return decodeURIComponent(short);
  } catch {
    return short;
  }
}

const line = (request: SetupRequest): string => `${request.method} ${readablePath(request.path)} answered ${request.status}`;

/** What the live region says of requests that just arrived (newest first). */
function arrived(fresh: readonly SetupRequest[]): string {
  const [latest] = fresh;
  if (latest === undefined) return "";
  const failed = fresh.filter((request) => request.status >= 400).length;
  if (fresh.length === 1) return `New request: ${line(latest)}${failed > 0 ? " (failed: see why below)" : ""}.`;
  return `${fresh.length} new requests${failed > 0 ? `, ${failed} failed (see why below)` : ""}; the latest: ${line(latest)}.`;
}

export function WaitingForRequests({ api, guide }: { readonly api: ApiClient; readonly guide: ProviderGuide }) {
  const [requests, setRequests] = useState<readonly SetupRequest[]>([]);
  const [said, setSaid] = useState("");
  const [noLog, setNoLog] = useState<string>();
  const [error, setError] = useState<Error>();
  const seen = useRef<Set<string> | undefined>(undefined);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (): Promise<void> => {
      try {
        const page = await api.get<SetupRequestList>("/setup/requests", { limit: 20 });
        if (stopped) return;
        const known = seen.current;
        seen.current = new Set([...(known ?? []), ...page.data.map((request) => request.requestId)]);
        if (known === undefined) {
          setSaid(
            page.data.length === 0
              ? `Waiting for ${guide.name}'s first request.`
              : `${page.data.length} ${page.data.length === 1 ? "request" : "requests"} so far; the latest: ${line(page.data[0] as SetupRequest)}.`,
          );
        } else {
          const fresh = page.data.filter((request) => !known.has(request.requestId));
          if (fresh.length > 0) setSaid(arrived(fresh));
        }
        setRequests((previous) => merged(page.data, previous));
        setError(undefined);
      } catch (caught) {
        if (stopped) return;
        const failure = toError(caught);
        // No provisioning log on this host: there is nothing to wait for, ever.
        if (failure instanceof ApiError && failure.status === 404) {
          setNoLog(failure.detail);
          return;
        }
        // The session ended: the page is replaced by what says so.
        if (failure instanceof ApiError && failure.status === 401) return;
        setError(failure);
      }
      // After the answer, not on a fixed beat: a slow server is never asked twice at once.
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [api, guide.name]);

  const sender = PROVIDER_GUIDES.find((candidate) => candidate.id !== "other" && candidate.id === requests[0]?.identityProvider);
  return (
    <section class="panel" aria-labelledby="step-requests" data-testid="setup-requests">
      <h2 id="step-requests">4. Waiting for your identity provider</h2>
      {noLog !== undefined ? (
        <p data-testid="no-request-log">
          {noLog} Test the connection in {guide.name} itself.
        </p>
      ) : (
        <>
          <p>
            Test the connection in {guide.name}: its requests appear here as they arrive, each with what this service answered. A request
            with a wrong or missing token is refused before it can be told apart, so it never appears: if {guide.name}'s test fails and
            nothing arrives, check its {guide.baseUrlField} and {guide.tokenField}.
          </p>
          <p class="live-said" role="status" aria-live="polite" data-testid="requests-said">
            {said}
          </p>
          {sender === undefined || sender.id === guide.id || guide.id === "other" ? null : (
            <p class="notice" data-testid="provider-mismatch">
              The latest request came from {sender.name}, not {guide.name}: choose {sender.name} in step 1, so that its compatibility
              profile applies.
            </p>
          )}
          <ErrorNotice error={error} />
          {requests.length === 0 ? null : (
            <ol class="setup-requests" aria-label="Requests received, newest first">
              {requests.map((request) => (
                <RequestItem key={request.requestId} request={request} guide={guide} />
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}

function RequestItem({ request, guide }: { readonly request: SetupRequest; readonly guide: ProviderGuide }) {
  const explanation = explain(request.status, request.scimType);
  const change = changeInProvider(request.status, request.scimType, guide);
  return (
    <li class={explanation === undefined ? "" : "failed"} data-testid="setup-request">
      <div class="setup-request-line">
        {/* The spaces between the items: a flex box lays them out without, a screen reader reads them with. */}
        <time dateTime={request.at} title={when(request.at)}>
          {timeOf(request.at)}
        </time>{" "}
        <span>
          <span class="method">{request.method}</span> <span class="setup-request-path">{readablePath(request.path)}</span>
        </span>{" "}
        <span>
          <span class={`status s${Math.floor(request.status / 100)}`}>{request.status}</span>
          {request.scimType === undefined ? null : <span class="scim-type"> {request.scimType}</span>}
          {explanation === undefined ? null : <span> failed</span>}
        </span>
      </div>
      {explanation === undefined ? null : (
        <div class="explanation" data-testid="setup-request-explanation">
          <p>
            <strong>What went wrong:</strong> {explanation.meaning}
          </p>
          {request.detail === undefined ? null : <p class="scim-detail">The service said: “{request.detail}”</p>}
          {change === undefined ? (
            <p>
              <strong>What to do:</strong> {explanation.expects}
            </p>
          ) : (
            <>
              <p>
                <strong>What to change in {guide.name}:</strong> {change}
              </p>
              <p class="hint">{explanation.expects}</p>
            </>
          )}
        </div>
      )}
    </li>
  );
}
