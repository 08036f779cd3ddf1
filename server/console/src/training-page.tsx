/**
 * Training figures as charts: a campaign's completions over time and its status split, and a
 * phishing simulation's funnel (sent, delivered, opened, clicked, submitted data; reported).
 */
import { useState } from "preact/hooks";
import type { CampaignList, CampaignSummary, CompletionTimeline, SimulationSummary } from "./analytics-api-types.js";
import { ApiError, seg } from "./api-client.js";
import { FunnelChart, LineChart } from "./charts.js";
import { useApi } from "./context.js";
import { ErrorNotice } from "./error-notice.js";
import { href, navigate, type Place } from "./router.js";
import { useAsync } from "./use-async.js";

export function TrainingPage({ place }: { readonly place: Place }) {
  const api = useApi();
  const campaignId = place.query.get("campaign") ?? undefined;
  const simulationId = place.query.get("simulation") ?? undefined;
  const campaigns = useAsync(() => api.get<CampaignList>("/campaigns", { limit: 1000 }), [api]);
  const go = (query: Record<string, string | undefined>): void =>
    navigate(href("/training", { campaign: campaignId, simulation: simulationId, ...query }));
  const [typed, setTyped] = useState(simulationId ?? "");
  const chosen = campaignId ?? campaigns.value?.data[0]?.id;
  return (
    <>
      <h1>Training</h1>
      <ErrorNotice error={campaigns.error} />
      <section class="panel" aria-labelledby="campaign-title">
        <h2 id="campaign-title">Campaign completion</h2>
        <div class="field">
          <label for="campaign">Campaign</label>
          <select id="campaign" value={chosen ?? ""} onChange={(event) => go({ campaign: event.currentTarget.value })}>
            {(campaigns.value?.data ?? []).map((campaign) => (
              <option key={campaign.id} value={campaign.id}>
                {campaign.name} ({campaign.organizationId})
              </option>
            ))}
          </select>
        </div>
        {campaigns.value && campaigns.value.data.length === 0 ? <p>No campaigns recorded yet.</p> : null}
        {chosen ? <CampaignCharts id={chosen} /> : null}
      </section>
      <section class="panel" aria-labelledby="simulation-title">
        <h2 id="simulation-title">Phishing simulation funnel</h2>
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            go({ simulation: typed.trim() });
          }}
        >
          <div class="field">
            <label for="simulation">Attack simulation id</label>
            <input
              id="simulation"
              value={typed}
              onInput={(event) => setTyped(event.currentTarget.value)}
              aria-describedby="simulation-help"
            />
            <span id="simulation-help" class="hint">
              The analytics interface lists no simulations; the host prints the demo simulation's id on its first start.
            </span>
          </div>
          <button type="submit">Show</button>
        </form>
        {simulationId ? <SimulationFunnel id={simulationId} /> : null}
      </section>
    </>
  );
}

function CampaignCharts({ id }: { readonly id: string }) {
  const api = useApi();
  const summary = useAsync(() => api.get<CampaignSummary>(`/campaigns/${seg(id)}/summary`), [api, id]);
  const timeline = useAsync(
    () =>
      api.get<CompletionTimeline>(`/campaigns/${seg(id)}/completion-timeline`).catch((error: unknown) => {
        // A host without the timeline operation: the summary's split is all there is to draw.
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }),
    [api, id],
  );
  const figures = summary.value;
  return (
    <>
      <ErrorNotice error={summary.error ?? timeline.error} />
      {figures ? (
        <dl class="figures">
          <div>
            <dt>Enrolled</dt>
            <dd>{figures.enrolled}</dd>
          </div>
          <div>
            <dt>Completed</dt>
            <dd>
              {figures.completed} ({Math.round(figures.completionRate * 100)}%)
            </dd>
          </div>
          <div>
            <dt>In progress</dt>
            <dd>{figures.inProgress}</dd>
          </div>
          <div>
            <dt>Not started</dt>
            <dd>{figures.notStarted}</dd>
          </div>
          <div>
            <dt>Overdue</dt>
            <dd>{figures.overdue}</dd>
          </div>
          <div>
            <dt>Average score</dt>
            <dd>{figures.averageScore === null ? "—" : figures.averageScore.toFixed(1)}</dd>
          </div>
        </dl>
      ) : null}
      {timeline.value && timeline.value.data.length > 0 ? (
        <LineChart
          title="Completed learners over time (cumulative)"
          unit="completed"
          ceiling={timeline.value.enrolled}
          points={timeline.value.data.map((day) => ({ label: day.date, value: day.cumulative }))}
        />
      ) : null}
      {timeline.value && timeline.value.data.length === 0 ? <p>No learner has completed this campaign yet.</p> : null}
      {!timeline.loading && timeline.value === undefined && figures ? (
        <FunnelChart
          title="Enrolments by status (this host has no completion timeline)"
          points={[
            { label: "Enrolled", value: figures.enrolled },
            { label: "Started", value: figures.inProgress + figures.completed },
            { label: "Completed", value: figures.completed },
          ]}
        />
      ) : null}
    </>
  );
}

function SimulationFunnel({ id }: { readonly id: string }) {
  const api = useApi();
  const summary = useAsync(() => api.get<SimulationSummary>(`/attack-simulations/${seg(id)}/summary`), [api, id]);
  const figures = summary.value;
  return (
    <>
      <ErrorNotice error={summary.error} />
      {figures ? (
        <FunnelChart
          title="What recipients did"
          points={[
            { label: "Sent", value: figures.sent },
            { label: "Delivered", value: figures.delivered },
            { label: "Opened", value: figures.opened },
            { label: "Clicked", value: figures.clicked },
            { label: "Submitted data", value: figures.submittedData },
            { label: "Reported", value: figures.reported },
          ]}
        />
      ) : null}
    </>
  );
}
