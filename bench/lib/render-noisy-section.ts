/**
 * The noisy-neighbour section of `docs/benchmarks.md` (issue 12): method, B's figures alone and
 * under each of A's loads, A's own requests, and two charts written next to the page.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BenchResults } from "./bench-results.js";
import { NOISY_TARGETS } from "./evaluate-noisy-goals.js";
import {
  aloneBefore,
  NOISY_LOAD_LABELS,
  NOISY_LOADS,
  type NoisyLoad,
  type NoisyRun,
  type NoisyWindow,
  type ShapeTiming,
} from "./noisy-neighbour-results.js";
import { PATHOLOGY } from "./pathological-requests.js";
import { formatVersion } from "./source-version.js";
import { barChart } from "./svg-bar-chart.js";

const STORE_ORDER = ["memory", "sqlite", "postgres"] as const;
const STORE_NAMES: Record<string, string> = { memory: "scimkit memory", sqlite: "scimkit SQLite", postgres: "scimkit PostgreSQL" };
const LOAD_COLORS: Record<NoisyLoad, string> = {
  alone: "#2ca02c",
  lists: "#1f77b4",
  patch: "#d62728",
  add: "#ff7f0e",
  bulk: "#9467bd",
};

const fmtN = (n: number): string => n.toLocaleString("en-US");
const fmtMs = (value: number | undefined): string =>
  value === undefined || !Number.isFinite(value)
    ? "–"
    : value < 1
      ? value.toFixed(2)
      : value < 100
        ? value.toFixed(1)
        : Math.round(value).toLocaleString("en-US");
const fmtRps = (value: number): string => (value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(1));
const fmtBytes = (bytes: number | undefined): string =>
  bytes === undefined
    ? "–"
    : bytes >= 1_048_576
      ? `${(bytes / 1_048_576).toFixed(2)} MiB`
      : `${Math.round(bytes / 1024).toLocaleString("en-US")} KiB`;
const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const codes = (statusCodes: Record<string, number>): string =>
  Object.entries(statusCodes)
    .map(([status, count]) => `${fmtN(count)}×${status}`)
    .join(", ");

function bTable(run: NoisyRun): string {
  const lines = [
    "| Condition | B req/s | vs alone before | B p50 ms | B p99 ms | p99 vs alone before | B max ms | B errors | max event-loop delay ms | other CPU % |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  run.windows.forEach((window, index) => {
    const b = window.b;
    const alone = window.a === undefined ? undefined : aloneBefore(run.windows, index);
    const share = alone && alone.b.rps > 0 ? `${((b.rps / alone.b.rps) * 100).toFixed(0)}%` : "–";
    const factor = alone && alone.b.ok > 0 && b.ok > 0 ? `${(b.p99Ms / alone.b.p99Ms).toFixed(1)}×` : "–";
    const errors =
      b.errors === 0
        ? "0"
        : `**${fmtN(b.errors)}** (${codes(Object.fromEntries(Object.entries(b.statusCodes).filter(([status]) => !status.startsWith("2"))))})`;
    lines.push(
      `| ${NOISY_LOAD_LABELS[window.load]} | ${fmtRps(b.rps)} | ${share} | ${fmtMs(b.p50Ms)} | ${fmtMs(b.p99Ms)} | ${factor} | ${fmtMs(b.maxMs)} | ${errors} | ${fmtMs(window.maxEventLoopDelayMs)} | ${window.otherCpuPct === undefined ? "–" : window.otherCpuPct.toFixed(0)} |`,
    );
  });
  return lines.join("\n");
}

function answerCell(shape: ShapeTiming): string {
  const parts = [codes(shape.statusCodes)];
  if (shape.operationStatuses) parts.push(`operations: ${codes(shape.operationStatuses)}`);
  if (shape.refusal)
    parts.push(`first refusal: ${shape.refusal.status === 0 ? "" : `${shape.refusal.status} `}“${shape.refusal.detail ?? "no detail"}”`);
  return cell(parts.join("; "));
}

function aTable(run: NoisyRun): string {
  const lines = [
    "| A's load | Request (one client, closed loop) | n | answers | p50 ms | max ms | body |",
    "| --- | --- | ---: | --- | ---: | ---: | ---: |",
  ];
  for (const window of run.windows) {
    for (const shape of window.a ?? []) {
      const late = !shape.helper && shape.maxMs > NOISY_TARGETS.maxAnswerMs;
      lines.push(
        `| ${NOISY_LOAD_LABELS[window.load].replace(/^A: /, "")} | \`${cell(shape.shape)}\`${shape.helper ? " (not a target)" : ""} | ${fmtN(shape.count)} | ${answerCell(shape)} | ${fmtMs(shape.p50Ms)} | ${late ? `**${fmtMs(shape.maxMs)}**` : fmtMs(shape.maxMs)} | ${fmtBytes(shape.bodyBytes)} |`,
      );
    }
  }
  return lines.join("\n");
}

function fixtureLine(run: NoisyRun): string {
  const fixture = run.fixture;
  if (!fixture) return "";
  const refused = fixture.manyEmailsAttempts.filter((attempt) => attempt.status < 200 || attempt.status >= 300);
  const built =
    fixture.manyEmailsBuilt === fixture.manyEmailsWanted
      ? `the user with ${fmtN(fixture.manyEmailsWanted)} e-mails was created (${fmtMs(fixture.manyEmailsAttempts[0]?.ms)} ms)`
      : fixture.manyEmailsBuilt > 0
        ? `**a user with ${fmtN(fixture.manyEmailsWanted)} e-mails was refused; the largest the server accepted holds ${fmtN(fixture.manyEmailsBuilt)}**, and the PATCH ran on it`
        : `**no user with many e-mails could be created**, so the PATCH load sent a cheap list request instead`;
  const refusals =
    refused.length === 0
      ? ""
      : ` Refused: ${refused.map((attempt) => `${fmtN(attempt.size)} e-mails → ${attempt.status}${attempt.detail ? ` “${attempt.detail}”` : ""}`).join("; ")}.`;
  return `Seeded ${fmtN(run.aUsers)} users in A and ${fmtN(run.bUsers)} in B${run.seedingMs === undefined ? "" : ` in ${(run.seedingMs / 1000).toFixed(1)} s`}; ${built}; ${fmtN(fixture.addPool)} one-e-mail users take the \`add\` requests in turn.${refusals}`;
}

/** Short names for the charts' legends. */
const LEGEND: Record<NoisyLoad, string> = {
  alone: "B alone (mean)",
  lists: "under A's lists",
  patch: "under A's PATCH",
  add: "under A's add",
  bulk: "under A's Bulk",
};

/**
 * The mean of `pick` over the windows of `load` (B alone is measured several times). A latency of
 * a window where B completed nothing does not exist: the bar says n/a rather than averaging it away.
 */
function value(run: NoisyRun, load: NoisyLoad, pick: (window: NoisyWindow) => number, latency: boolean): number | undefined {
  const windows = run.windows.filter((window) => window.load === load);
  if (windows.length === 0) return undefined;
  if (latency && windows.some((window) => window.b.ok === 0)) return undefined;
  return windows.reduce((sum, window) => sum + pick(window), 0) / windows.length;
}

function charts(runs: readonly NoisyRun[], chartDir: string): { title: string; file: string }[] {
  const loads = NOISY_LOADS.filter((load) => runs.some((run) => run.windows.some((window) => window.load === load)));
  const series = loads.map((load) => ({ name: LEGEND[load], color: LOAD_COLORS[load] }));
  const groups = (pick: (window: NoisyWindow) => number, latency: boolean) =>
    runs.map((run) => ({
      name: `${STORE_NAMES[run.target] ?? run.target}\nA: ${fmtN(run.aUsers)} users`,
      values: loads.map((load) => value(run, load, pick, latency)),
    }));
  const made = [
    {
      title: "B's p99 latency, alone and under A",
      file: "noisy-neighbour-p99.svg",
      svg: barChart({
        title: "Organization B, GET /Users/{id}: p99 alone and under A",
        yLabel: "p99 ms",
        series,
        groups: groups((window) => window.b.p99Ms, true),
        scale: "log",
        format: fmtMs,
      }),
    },
    {
      title: "B's throughput, alone and under A",
      file: "noisy-neighbour-throughput.svg",
      svg: barChart({
        title: "Organization B, GET /Users/{id}: throughput alone and under A",
        yLabel: "2xx req/s",
        series,
        groups: groups((window) => window.b.rps, false),
        format: fmtRps,
      }),
    },
  ];
  for (const chart of made) writeFileSync(join(chartDir, chart.file), chart.svg);
  return made.map(({ title, file }) => ({ title, file }));
}

/** Writes the section's charts into `chartDir` and returns its markdown ("" when the scenario did not run). */
export function renderNoisySection(results: BenchResults, chartDir: string): string {
  const runs = STORE_ORDER.flatMap((store) => (results.noisy ?? []).filter((run) => run.target === store));
  if (runs.length === 0) return "";
  const first = runs[0] as NoisyRun;
  const source = results.noisySource
    ? `These figures come from a separate run of the scenario alone (\`--only=noisy\`), started ${results.noisySource.startedAt}: \`${results.noisySource.file}\`, code \`${formatVersion(results.noisySource.source)}\`.`
    : "These figures come from the same run as the rest of this page.";
  const made = charts(runs, chartDir);
  const failures = runs.filter((run) => run.error);
  return `## Noisy neighbour (issue 12)

Two organizations of one host process: **A** with ${fmtN(first.aUsers)} seeded users, **B** with ${fmtN(first.bUsers)}. B sends \`GET /Users/{id}\` (a random one of its users) on ${first.connections} keep-alive connections, closed loop, for ${first.durationSec} s per window: alone, then under one of A's loads, alone again, under the next load, and so on, ending alone. Each load is compared with B alone **right before it**: the machine is shared and its noise drifts, so a baseline minutes old would carry that drift into the ratio. Each of A's loads is **one client in a closed loop** — its next request leaves when the previous answer has arrived — started just before B's window and stopped after it; its last request is allowed to finish (or is abandoned after the request timeout) and the target is idle again before the next window. A's loads:

- **lists**: \`GET /Users?filter=emails.value co "x"\` (every seeded e-mail contains "x"), \`filter=name.familyName ew "z" or title pr\` (matches nobody), \`sortBy=name.familyName&startIndex=40000\` (at 80% of A's users when A has fewer than 50,000), in turn;
- **PATCH**: one \`PATCH /Users/{id}\` of ${fmtN(PATHOLOGY.patchOperations)} operations \`replace emails[value eq "…"].type\` (every filter matches; the types alternate between requests, so every request changes the user; the first, "work", e-mail is left alone because the host requires a work e-mail) on a user created with ${fmtN(PATHOLOGY.manyEmails)} e-mails, over and over;
- **add**: \`PATCH /Users/{id}\` \`add emails\` with ${fmtN(PATHOLOGY.addValues)} new values, on users that hold one e-mail (a pool, each reset to its one e-mail by a small PATCH before its next turn — that helper request is shown, not judged);
- **Bulk**: \`POST /Bulk\` of ${fmtN(PATHOLOGY.bulkOperations)} \`POST /Users\` where operation *k* names operation *k+1*'s \`bulkId\` as its manager, so they can only run last to first.

The pathological users are created over HTTP, so the server's own bounds apply; a size the server refuses is recorded with its answer, never assumed. B's latencies are exact percentiles of its 2xx answers; a B request still in flight when its window ends is not counted (a window where B completed nothing shows "–"). Event-loop delay is the target's maximum over the window and A's last request. Targets (above, "noisy neighbour"): B keeps ≥ ${NOISY_TARGETS.minThroughputShare * 100}% of its throughput alone, B's p99 ≤ ${NOISY_TARGETS.maxP99Factor}× its p99 alone and its max under ${NOISY_TARGETS.maxLatencyMs} ms, under every one of A's loads; every request of A answered or refused within ${NOISY_TARGETS.maxAnswerMs / 1000} s. ${source}

${made.map((chart) => `![${chart.title}](benchmarks/${chart.file})`).join("\n\n")}

In the p99 chart, "n/a" means B completed no request at all in that window (the event-loop delay in the tables shows how long the target was stuck).

${runs
  .map(
    (run) => `### ${STORE_NAMES[run.target] ?? run.target}, A with ${fmtN(run.aUsers)} users

${fixtureLine(run)}${run.loadAverage === undefined ? "" : ` Load average at the start: ${run.loadAverage}.`}

${run.windows.length > 0 ? `${bTable(run)}\n\n${aTable(run)}` : "_No window was measured._"}${run.error ? `\n\n**Failed:** ${cell(run.error)}` : ""}`,
  )
  .join("\n\n")}
${failures.length > 0 ? `\nFailed runs: ${failures.map((run) => STORE_NAMES[run.target] ?? run.target).join(", ")}.\n` : ""}`;
}
