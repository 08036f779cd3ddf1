/**
 * Moving an organization to another region (issue 30, point 4): the moves this host took part in,
 * read again every few seconds while one is under way, a button to roll back a move out of this
 * region before its switch, and a form to start one. A host that cannot move organizations (one
 * process with a SQL store and the region key are needed) says why instead, and offers no form.
 */
import { useEffect, useState } from "preact/hooks";
import type { RegionMove, RegionMoveList, Regions } from "./analytics-api-types.js";
import { ApiError, seg } from "./api-client.js";
import { useApi } from "./context.js";
import { ErrorNotice } from "./error-notice.js";
import { OrganizationPicker } from "./organization-picker.js";
import { when } from "./organization.js";
import { toError, useAsync } from "./use-async.js";

const POLL_MS = 2000;

type Step = RegionMove["step"];

/** Steps a move never leaves: nothing more to read once every move is at one. */
const FINAL: ReadonlySet<Step> = new Set<Step>(["done", "rolled-back", "home"]);
/** Before the switch: the source's host can still give the organization back to this region. */
const CANCELLABLE: ReadonlySet<Step> = new Set<Step>(["requested", "freezing", "copying", "verifying"]);

/** Each step in an operator's words: what the organization's identity provider meets meanwhile. */
const STEP_WORDS: Readonly<Record<Step, string>> = {
  requested: "recorded; writes still accepted",
  freezing: "writes refused (503), those in flight finishing",
  copying: "rows sent to the new region",
  verifying: "both copies compared",
  switching: "the new region takes the organization",
  cleaning: "served by the new region; this one deletes its copy",
  done: "moved",
  "rolling-back": "the new region drops its copy",
  "rolled-back": "stays here; writes accepted again",
  arriving: "rows arriving from the old region",
  home: "served here",
};

/** Whether `error` is the host saying it cannot move organizations at all. */
function movesNothing(error: Error | undefined): error is ApiError {
  return error instanceof ApiError && error.status === 404;
}

export function RegionMovesSection({ regions }: { readonly regions: Regions }) {
  const api = useApi();
  const moves = useAsync(() => api.get<RegionMoveList>("/regions/moves"), [api]);
  const [org, setOrg] = useState<string>();
  const [to, setTo] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const [said, setSaid] = useState("");
  const list = moves.value?.data ?? [];
  const underWay = list.some((move) => !FINAL.has(move.step));
  const { loading, reload } = moves;
  // Read again a while after each answer rather than on a clock, so a slow answer is never
  // overtaken by the next request; nothing is asked once every move is over, or the page is left.
  useEffect(() => {
    if (!underWay || loading) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [underWay, loading, reload]);

  if (movesNothing(moves.error)) {
    return (
      <section aria-labelledby="moves-title">
        <h2 id="moves-title">Moves</h2>
        <p data-testid="moves-unavailable">{moves.error.detail}</p>
      </section>
    );
  }

  const others = regions.regions.filter((region) => !region.self);
  const move = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (org === undefined || to === "") return;
    setBusy(true);
    setError(undefined);
    setSaid("");
    try {
      const started = await api.post<RegionMove>("/regions/moves", { organizationId: org, to });
      setSaid(`Moving ${started.orgId} from ${started.from} to ${started.to}.`);
      setOrg(undefined);
      reload();
    } catch (caught) {
      setError(toError(caught));
    } finally {
      setBusy(false);
    }
  };
  const cancel = async (target: RegionMove): Promise<void> => {
    setError(undefined);
    setSaid("");
    try {
      await api.delete(`/regions/moves/${seg(target.orgId)}`);
      setSaid(`Rolling back the move of ${target.orgId}: it stays in ${target.from}.`);
    } catch (caught) {
      setError(toError(caught));
    }
    // Also after a refusal: a 409 means the move passed its switch meanwhile, which the table should show.
    reload();
  };

  return (
    <section aria-labelledby="moves-title">
      <h2 id="moves-title">Moves</h2>
      {moves.value && list.length === 0 ? <p data-testid="no-moves">No organization has moved out of or into this region.</p> : null}
      {list.length > 0 ? (
        <section class="table-wrap" aria-label="Moves">
          <table>
            <caption class="visually-hidden">Organizations moving out of or into this region, the most recent first</caption>
            <thead>
              <tr>
                <th scope="col">Organization</th>
                <th scope="col">From → to</th>
                <th scope="col">Side</th>
                <th scope="col">Step</th>
                <th scope="col">Last error</th>
                <th scope="col">Started</th>
                <th scope="col">Updated</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((entry) => (
                <tr key={entry.moveId} data-testid={`move-${entry.orgId}`}>
                  <td>
                    <code>{entry.orgId}</code>
                  </td>
                  <td data-testid="move-regions">
                    {entry.from} → {entry.to}
                  </td>
                  <td data-testid="move-side">{entry.side}</td>
                  <td>
                    <span data-testid="move-step">{entry.step}</span>
                    <div class="hint">{STEP_WORDS[entry.step]}</div>
                  </td>
                  <td data-testid="move-last-error">{entry.lastError ?? "—"}</td>
                  <td>{when(entry.startedAt)}</td>
                  <td>{when(entry.updatedAt)}</td>
                  <td>
                    {entry.side === "source" && CANCELLABLE.has(entry.step) ? (
                      <button type="button" class="secondary" onClick={() => cancel(entry)}>
                        Cancel <span class="visually-hidden">the move of {entry.orgId}</span>
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      <p class="status-line" role="status">
        {said}
      </p>
      <ErrorNotice error={error ?? moves.error} />
      <section aria-labelledby="move-title" class="panel">
        <h3 id="move-title">Move an organization</h3>
        <p class="hint">
          A move copies the organization's data to the other region's database, refusing its writes with 503 for the cut-over (the identity
          provider retries them); then its identity provider's admin changes the tenant URL to the new region's base URL above, and the
          token stays the same.
        </p>
        <form onSubmit={move} class="inline-form" data-testid="move-form">
          <OrganizationPicker id="move-org" value={org} onChange={setOrg} />
          <div class="field">
            <label for="move-to">To region</label>
            <select id="move-to" value={to} onChange={(event) => setTo(event.currentTarget.value)}>
              <option value="" disabled>
                Choose a region
              </option>
              {others.map((region) => (
                <option key={region.region} value={region.region}>
                  {region.region}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" disabled={busy || org === undefined || to === ""}>
            Move
          </button>
        </form>
      </section>
    </section>
  );
}
