/**
 * Where organizations' data is hosted (issue 30): the regions of the service with their base URLs,
 * how current this host's copy of each other region's directory is, and the requests that arrived
 * at this region for organizations homed in another — each an identity provider whose tenant URL
 * points at the wrong host, for its admin to fix — each region's totals and their sum
 * (`RegionsSummarySection`), and the organizations moving between regions (`RegionMovesSection`).
 * A service of one region says so.
 */
import { useState } from "preact/hooks";
import type { RegionOrganizationList, Regions } from "./analytics-api-types.js";
import { ApiError, withQuery } from "./api-client.js";
import { useApi } from "./context.js";
import { ErrorNotice } from "./error-notice.js";
import { RegionMovesSection } from "./region-moves-section.js";
import { RegionsSummarySection } from "./regions-summary-section.js";
import { useAsync } from "./use-async.js";

export function RegionsPage() {
  const api = useApi();
  const regions = useAsync(() => api.get<Regions>("/regions"), [api]);
  const [cursor, setCursor] = useState<string>();
  const elsewhere = useAsync(
    () => api.get<RegionOrganizationList>(withQuery("/regions/organizations", { limit: 50, cursor })),
    [api, cursor],
  );
  if (regions.error instanceof ApiError && regions.error.status === 404) {
    return (
      <>
        <h1>Regions</h1>
        <p data-testid="one-region">This service runs in one region: every organization's data is in this host's database.</p>
      </>
    );
  }
  const value = regions.value;
  return (
    <>
      <h1>Regions</h1>
      {value ? (
        <p>
          This host serves region <strong data-testid="this-region">{value.region}</strong>. Each region holds its organizations' data in
          its own database; the others know only their ids, names and states.
        </p>
      ) : null}
      <section class="table-wrap" aria-label="Regions">
        <table>
          <caption class="visually-hidden">The regions of the service</caption>
          <thead>
            <tr>
              <th scope="col">Region</th>
              <th scope="col">Base URL</th>
              <th scope="col">Organizations known here</th>
              <th scope="col">Directory read</th>
            </tr>
          </thead>
          <tbody>
            {(value?.regions ?? []).map((region) => (
              <tr key={region.region} data-testid={`region-${region.region}`}>
                <td>
                  {region.region}
                  {region.self ? " (this host)" : ""}
                </td>
                <td>
                  <code>{region.baseUrl}</code>
                </td>
                <td>{region.self ? "—" : (region.organizations ?? 0)}</td>
                <td>
                  {region.self ? "—" : region.syncedAt ? new Date(region.syncedAt).toLocaleString() : "not since this host started"}
                  {region.lastError ? <div class="error">Last read failed: {region.lastError}; the previous copy is kept.</div> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {/* Once the regions answered: a service of one region is not asked for its totals and moves (404s more). */}
      {value ? <RegionsSummarySection /> : null}
      {value ? <RegionMovesSection regions={value} /> : null}
      <h2>Requests arriving at the wrong region</h2>
      {value && value.misdirected.length === 0 ? <p data-testid="no-misdirected">None since this host started.</p> : null}
      {value && value.misdirected.length > 0 ? (
        <section class="table-wrap" aria-label="Requests arriving at the wrong region">
          <table>
            <caption class="visually-hidden">Per organization homed elsewhere, the requests this host answered 421</caption>
            <thead>
              <tr>
                <th scope="col">Organization</th>
                <th scope="col">Home region</th>
                <th scope="col">Requests</th>
                <th scope="col">Last</th>
              </tr>
            </thead>
            <tbody>
              {value.misdirected.map((entry) => (
                <tr key={entry.orgId} data-testid={`misdirected-${entry.orgId}`}>
                  <td>
                    <code>{entry.orgId}</code>
                  </td>
                  <td>{entry.homeRegion}</td>
                  <td>{entry.count}</td>
                  <td>{new Date(entry.lastAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="hint">
            Each is an identity provider still sending to this host: its admin changes the tenant URL to the home region's base URL above
            (the token stays the same).
          </p>
        </section>
      ) : null}
      <h2>Organizations of the other regions</h2>
      <section class="table-wrap" aria-label="Organizations of the other regions">
        <table>
          <caption class="visually-hidden">Organizations homed in the other regions, by id: their data is in their region</caption>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Name</th>
              <th scope="col">Home region</th>
              <th scope="col">Status</th>
              <th scope="col">SCIM base URL</th>
            </tr>
          </thead>
          <tbody>
            {(elsewhere.value?.data ?? []).map((organization) => (
              <tr key={organization.id} data-testid={`elsewhere-${organization.id}`}>
                <td>
                  <code>{organization.id}</code>
                </td>
                <td>{organization.name}</td>
                <td>{organization.homeRegion}</td>
                <td>{organization.status}</td>
                <td>
                  <code>{organization.scimBaseUrl}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {cursor !== undefined ? (
        <button type="button" class="secondary" onClick={() => setCursor(undefined)}>
          First page
        </button>
      ) : null}
      {elsewhere.value?.nextCursor ? (
        <button type="button" class="secondary" onClick={() => setCursor(elsewhere.value?.nextCursor ?? undefined)}>
          Next page
        </button>
      ) : null}
      <ErrorNotice error={regions.error ?? elsewhere.error} />
    </>
  );
}
