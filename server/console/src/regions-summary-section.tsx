/**
 * The service's figures across regions (issue 30, point 5): each region's organizations, users
 * and groups, counted by that region's own host — only the totals cross between regions — and
 * their sum, said to be incomplete when a region's host did not answer (with why).
 */
import type { RegionsSummary } from "./analytics-api-types.js";
import { useApi } from "./context.js";
import { ErrorNotice } from "./error-notice.js";
import { useAsync } from "./use-async.js";

type Counts = Pick<RegionsSummary["total"], "organizations" | "users" | "activeUsers" | "groups">;

/** The four count cells of a row. */
function CountCells({ counts }: { readonly counts: Partial<Counts> }) {
  return (
    <>
      <td data-testid="summary-organizations">{(counts.organizations ?? 0).toLocaleString()}</td>
      <td data-testid="summary-users">{(counts.users ?? 0).toLocaleString()}</td>
      <td data-testid="summary-active-users">{(counts.activeUsers ?? 0).toLocaleString()}</td>
      <td data-testid="summary-groups">{(counts.groups ?? 0).toLocaleString()}</td>
    </>
  );
}

export function RegionsSummarySection() {
  const api = useApi();
  const summary = useAsync(() => api.get<RegionsSummary>("/regions/summary"), [api]);
  const value = summary.value;
  const missing = (value?.regions ?? []).filter((region) => region.error !== undefined).map((region) => region.region);
  return (
    <>
      <h2>Across regions</h2>
      <p class="hint">
        Each region's host counts its own organizations, users and groups in its own database; only these totals cross between regions.
      </p>
      <section class="table-wrap" aria-label="Across regions">
        <table>
          <caption class="visually-hidden">Each region's totals, counted by its own host, and their sum</caption>
          <thead>
            <tr>
              <th scope="col">Region</th>
              <th scope="col">Organizations</th>
              <th scope="col">Users</th>
              <th scope="col">Active users</th>
              <th scope="col">Groups</th>
              <th scope="col">Counted</th>
            </tr>
          </thead>
          <tbody>
            {(value?.regions ?? []).map((region) => (
              <tr key={region.region} data-testid={`summary-${region.region}`}>
                <th scope="row">
                  {region.region}
                  {region.self ? " (this host)" : ""}
                </th>
                {region.error === undefined ? (
                  <>
                    <CountCells counts={region} />
                    <td>{region.at ? new Date(region.at).toLocaleString() : "—"}</td>
                  </>
                ) : (
                  <td colSpan={5} class="error" data-testid="summary-error">
                    No totals: {region.error}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
          {value ? (
            <tfoot>
              <tr data-testid="summary-total">
                <th scope="row">{value.complete ? "Total" : "Total (incomplete)"}</th>
                <CountCells counts={value.total} />
                <td>—</td>
              </tr>
            </tfoot>
          ) : null}
        </table>
      </section>
      {value && !value.complete ? (
        <p class="hint" data-testid="summary-incomplete">
          Incomplete: the total leaves out {missing.join(", ")}, whose host did not answer.
        </p>
      ) : null}
      <p>
        <button type="button" class="secondary" onClick={summary.reload} disabled={summary.loading}>
          Count again
        </button>
      </p>
      <ErrorNotice error={summary.error} />
    </>
  );
}
