/**
 * Regenerates `docs/benchmarks.md` and its charts (`docs/benchmarks/*.svg`) from a results file:
 * the targets table first, then the lead's explanations (`bench/explanations.md`), the charts,
 * and a table per store of every phase at every N.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { TargetKind } from "./bench-config.js";
import { p50Of, type BenchResults, type PhaseResult, type TargetRun } from "./bench-results.js";
import { evaluateGoals, type GoalResult } from "./evaluate-goals.js";
import { GROUP_PHASES, PHASE_LABELS, USER_PHASES, type PhaseKey } from "./phase-catalog.js";
import { renderNoisySection } from "./render-noisy-section.js";
import { keepWorkersSection } from "./workers-docs-section.js";
import { formatVersion } from "./source-version.js";
import { lineChart, type ChartSeries } from "./svg-line-chart.js";

const TARGET_ORDER: readonly TargetKind[] = ["memory", "sqlite", "table", "postgres", "scimmy"];
const TARGET_NAMES: Record<TargetKind, string> = {
  memory: "scimkit memory",
  sqlite: "scimkit SQLite",
  table: "scimkit table store (SQLite, the application's tables)",
  postgres: "scimkit PostgreSQL",
  scimmy: "scimmy + scimmy-routers (peer)",
};
const COLORS: Record<TargetKind, string> = {
  memory: "#1f77b4",
  sqlite: "#2ca02c",
  postgres: "#9467bd",
  scimmy: "#d62728",
  table: "#ff7f0e",
};

const fmtN = (n: number): string => n.toLocaleString("en-US");
const fmtMs = (value: number | undefined): string =>
  value === undefined || !Number.isFinite(value) ? "–" : value < 1 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
const fmtRps = (value: number | undefined): string =>
  value === undefined || !Number.isFinite(value) ? "–" : value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(1);
const fmtPct = (ratio: number | undefined): string =>
  ratio === undefined || !Number.isFinite(ratio) ? "–" : `${(ratio * 100).toFixed(ratio < 0.1 ? 2 : 1)}%`;
const fmtMb = (bytes: number | undefined): string => (bytes === undefined ? "–" : (bytes / 1_048_576).toFixed(0));
const slug = (key: string): string => key.replace(/\./g, "-").replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function statusCell(goal: GoalResult): string {
  const mark = goal.status === "met" ? "✅ met" : goal.status === "not met" ? "❌ not met" : "— not measured";
  return goal.caveat ? `${mark} (${goal.caveat})` : mark;
}

function goalsTable(goals: readonly GoalResult[]): string {
  const lines = ["| Target | Required | Measured | Status |", "| --- | --- | --- | --- |"];
  for (const goal of goals) lines.push(`| ${goal.goal} | ${goal.target} | ${goal.measured} | ${statusCell(goal)} |`);
  return lines.join("\n");
}

function phaseName(phase: PhaseResult): string {
  const label = PHASE_LABELS[phase.key].replace(/\|/g, "\\|");
  return phase.groupSize === undefined ? `\`${label}\`` : `\`${label}\` (group of ${fmtN(phase.groupSize)})`;
}

function errorsCell(phase: PhaseResult): string {
  const stats = phase.stats;
  if (!stats) return "–";
  if (stats.errors === 0) return "0";
  const codes = Object.entries(stats.statusCodes)
    .filter(([code]) => !code.startsWith("2"))
    .map(([code, count]) => `${count}×${code}`);
  return `**${stats.errors}**${codes.length > 0 ? ` (${codes.join(", ")})` : ""}`;
}

function storeTable(runs: readonly TargetRun[]): string {
  const lines = [
    "| Phase | N | req/s | ratio to bare | p50 ms | p99 ms | errors | RSS MB | max event-loop delay ms | other CPU % |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const keys: { key: PhaseKey; groupSize?: number }[] = [];
  for (const run of runs) {
    for (const phase of run.phases) {
      if (!keys.some((k) => k.key === phase.key && k.groupSize === phase.groupSize))
        keys.push({ key: phase.key, ...(phase.groupSize === undefined ? {} : { groupSize: phase.groupSize }) });
    }
  }
  const order = [...USER_PHASES, ...GROUP_PHASES] as readonly PhaseKey[];
  keys.sort((a, b) => order.indexOf(a.key) - order.indexOf(b.key) || (a.groupSize ?? 0) - (b.groupSize ?? 0));
  for (const { key, groupSize } of keys) {
    for (const run of runs) {
      const phase = run.phases.find((p) => p.key === key && p.groupSize === groupSize);
      if (!phase) continue;
      if (phase.unsupported) {
        lines.push(`| ${phaseName(phase)} | ${fmtN(run.n)} | n/a | | | | | | ${phase.unsupported.replace(/\|/g, "\\|")} | |`);
        continue;
      }
      const s = phase.stats;
      const slow = s !== undefined && s.ok < 1;
      const serial = phase.serial ? `serial: ${fmtMs(phase.serial.p50Ms)}` : "";
      const p50 = slow
        ? `> ${fmtMs((s?.elapsedSec ?? 0) * 1000)} ${serial ? `(${serial})` : ""}`
        : `${fmtMs(s?.p50Ms)}${serial ? ` (${serial})` : ""}`;
      lines.push(
        `| ${phaseName(phase)} | ${fmtN(run.n)} | ${fmtRps(s?.rps)} | ${fmtPct(phase.ratio)} | ${p50} | ${slow ? "–" : fmtMs(s?.p99Ms)} | ${errorsCell(phase)} | ${fmtMb(phase.rssBytes)} | ${fmtMs(phase.maxEventLoopDelayMs)} | ${phase.otherCpuPct === undefined ? "–" : phase.otherCpuPct.toFixed(0)} |`,
      );
    }
  }
  return lines.join("\n");
}

function seedingTable(results: BenchResults): string {
  const lines = [
    "| Target | N | seeding time | users/s | RSS empty MB | RSS seeded MB | RSS per user | member-pool seeding | load avg at start |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const target of TARGET_ORDER) {
    for (const run of results.runs.filter((r) => r.target === target).sort((a, b) => a.n - b.n)) {
      const perUser =
        run.rssSeededBytes !== undefined && run.rssEmptyBytes !== undefined ? (run.rssSeededBytes - run.rssEmptyBytes) / run.n : undefined;
      lines.push(
        `| ${TARGET_NAMES[target]} | ${fmtN(run.n)} | ${run.seeding ? `${(run.seeding.ms / 1000).toFixed(1)} s` : "–"} | ${run.seeding ? Math.round(run.seeding.perSecond).toLocaleString("en-US") : "–"} | ${fmtMb(run.rssEmptyBytes)} | ${fmtMb(run.rssSeededBytes)} | ${perUser === undefined ? "–" : `${(perUser / 1024).toFixed(2)} KB`} | ${run.poolSeeding ? `${fmtN(run.poolSeeding.users)} in ${(run.poolSeeding.ms / 1000).toFixed(1)} s` : "–"} | ${run.loadAverage ?? "–"} |`,
      );
    }
  }
  return lines.join("\n");
}

function userPhaseChart(results: BenchResults, key: PhaseKey): string {
  const series: ChartSeries[] = TARGET_ORDER.filter((target) => results.runs.some((run) => run.target === target)).map((target) => ({
    name: TARGET_NAMES[target].replace(" (peer)", ""),
    color: COLORS[target],
    dashed: target === "scimmy",
    points: results.runs
      .filter((run) => run.target === target)
      .flatMap((run) => {
        const p50 = p50Of(run.phases.find((p) => p.key === key));
        return p50 ? [{ x: run.n, y: p50.ms }] : [];
      }),
  }));
  return lineChart({
    title: `${PHASE_LABELS[key]} — p50 latency`,
    xLabel: "N users (log)",
    yLabel: "p50 ms (log)",
    series,
    ...(results.baseline
      ? { reference: { y: results.baseline.p50Ms, label: `bare Express p50 ${fmtMs(results.baseline.p50Ms)} ms` } }
      : {}),
  });
}

/** Group phases: p50 against group size, at each target's largest N. */
function groupPhaseChart(results: BenchResults, key: PhaseKey): string {
  const series: ChartSeries[] = TARGET_ORDER.filter((target) => results.runs.some((run) => run.target === target)).map((target) => {
    const run = results.runs
      .filter((r) => r.target === target && r.phases.some((p) => p.key === key && p.stats))
      .sort((a, b) => b.n - a.n)[0];
    return {
      name: `${TARGET_NAMES[target].replace(" (peer)", "")}${run ? ` @${fmtN(run.n)}` : ""}`,
      color: COLORS[target],
      dashed: target === "scimmy",
      // Log axis: the empty group is drawn at size 1.
      points: (run?.phases ?? [])
        .filter((p) => p.key === key && p50Of(p))
        .map((p) => ({ x: Math.max(1, p.groupSize ?? 1), y: p50Of(p)?.ms ?? 0 })),
    };
  });
  return lineChart({
    title: `${PHASE_LABELS[key]} — p50 latency by group size`,
    xLabel: "members in the group (log; empty group drawn at 1)",
    yLabel: "p50 ms (log)",
    series,
    ...(results.baseline
      ? { reference: { y: results.baseline.p50Ms, label: `bare Express p50 ${fmtMs(results.baseline.p50Ms)} ms` } }
      : {}),
  });
}

/** Writes the markdown and the charts; returns the markdown's path. */
/**
 * The full import of each scimkit run (issue 29): every page of 100 one after another on one
 * connection, by startIndex and by cursor, timed whole, on what the user phases left.
 */
function importWalkTable(results: BenchResults): string {
  const walked = results.runs
    .filter((run) => run.importWalk !== undefined)
    .sort((a, b) => TARGET_ORDER.indexOf(a.target) - TARGET_ORDER.indexOf(b.target) || a.n - b.n);
  if (walked.length === 0) return "_Not measured in this run._";
  const seconds = (value: number): string => `${(value / 1000).toFixed(value < 10_000 ? 2 : 1)} s`;
  const rows = walked.map((run) => {
    const { byIndex, byCursor } = run.importWalk as NonNullable<TargetRun["importWalk"]>;
    const cursor = byCursor
      ? `${seconds(byCursor.totalMs)} (${byCursor.pagesPerSecond.toFixed(0)} pages/s, slowest ${fmtMs(byCursor.slowestPageMs)} ms)`
      : "no cursor";
    const ratio = byCursor ? `${(byIndex.totalMs / byCursor.totalMs).toFixed(2)}×` : "–";
    return `| ${TARGET_NAMES[run.target]} | ${fmtN(run.n)} | ${fmtN(byIndex.resources)} | ${seconds(byIndex.totalMs)} (${byIndex.pagesPerSecond.toFixed(0)} pages/s, slowest ${fmtMs(byIndex.slowestPageMs)} ms, last ${fmtMs(byIndex.lastPageMs)} ms) | ${cursor} | ${ratio} |`;
  });
  return `Every user of the run's organization, pages of 100 one after another on one connection, after the user phases (so the POST phase's users too): by \`startIndex\` (Okta's way) and by RFC 9865 cursor. A page by \`startIndex\` follows the position the page before it ended at (remembered per organization and query), so its cost does not grow with the offset: the last page costs what the first did.

| Store | N | Users walked | by startIndex | by cursor | startIndex ÷ cursor |
| --- | --- | --- | --- | --- | --- |
${rows.join("\n")}`;
}

export function renderReport(results: BenchResults, options: { readonly repoRoot: string; readonly resultsFile: string }): string {
  const docs = join(options.repoRoot, "docs");
  const chartDir = join(docs, "benchmarks");
  mkdirSync(chartDir, { recursive: true });
  const charts: { title: string; file: string }[] = [];
  for (const key of USER_PHASES) {
    const file = `${slug(key)}.svg`;
    writeFileSync(join(chartDir, file), userPhaseChart(results, key));
    charts.push({ title: PHASE_LABELS[key], file });
  }
  for (const key of GROUP_PHASES) {
    const file = `${slug(key)}.svg`;
    writeFileSync(join(chartDir, file), groupPhaseChart(results, key));
    charts.push({ title: `${PHASE_LABELS[key]} (by group size)`, file });
  }
  const noisySection = renderNoisySection(results, chartDir);
  const goals = evaluateGoals(results);
  const met = goals.filter((goal) => goal.status === "met").length;
  const notMet = goals.filter((goal) => goal.status === "not met").length;
  const explanationsFile = join(options.repoRoot, "bench", "explanations.md");
  const explanations = existsSync(explanationsFile)
    ? readFileSync(explanationsFile, "utf8").trim()
    : "_None yet. Write them in `bench/explanations.md`; the next `npm run bench` (or `tsx bench/run-bench.ts --report-only=<results.json>`) puts them here._";
  const m = results.machine;
  const c = results.config;
  const baseline = results.baseline;
  const bareRounds = results.bare
    .map((round) => `${fmtRps(round.stats.rps)} req/s, p50 ${fmtMs(round.stats.p50Ms)} ms (${round.at})`)
    .join("; ");
  const targets = TARGET_ORDER.filter((target) => results.runs.some((run) => run.target === target));
  const failures = results.runs.filter((run) => run.error);
  const distinct = [...new Set(results.runs.map((run) => formatVersion(run.source)))];
  const versions =
    distinct.length <= 1
      ? `commit \`${distinct[0] ?? formatVersion(results.source)}\` for every target`
      : `**the code changed during the run** — ${results.runs.map((run) => `${run.target}@${fmtN(run.n)}: \`${formatVersion(run.source)}\``).join(", ")}`;
  const restarted = results.runs.filter((run) => (run.restarts ?? 0) > 0);

  const md = `# Benchmarks

<!-- Generated by \`npm run bench\` from \`${relative(options.repoRoot, options.resultsFile)}\`. Do not edit by hand: edit bench/ or bench/explanations.md and regenerate. -->

Run ${results.startedAt}${c.quick ? " — **quick smoke run (--quick): N=1,000 only, 1 s phases; not a measurement to quote**" : ""}.
Every throughput is also given as a **ratio to a bare Express endpoint** (\`GET /bare\` returning a small fixed JSON body) measured in the same run on the same machine:
**${baseline ? `${fmtRps(baseline.rps)} req/s, p50 ${fmtMs(baseline.p50Ms)} ms` : "–"}** (mean of ${results.bare.length} rounds: ${bareRounds}).

Code measured: ${versions}.

**Targets: ${met} met, ${notMet} not met, ${goals.length - met - notMet} not measured.**

## Targets

${goalsTable(goals)}

Ratios are 2xx throughput divided by the bare endpoint's throughput. "Every group size" means the groups of ${c.groupSizes.map(fmtN).join(", ")} members (those ≤ N).

## Explanations of unmet targets

${explanations}

## Charts

p50 latency against N (log–log), one line per store, the peer dashed, the bare Express p50 dotted. Where a phase completed fewer requests than connections under load, the point is the serial p50 (1 connection, up to 3 requests). Group phases are drawn against the group's size at each target's largest N.

${charts.map((chart) => `### ${chart.title.replace(/\|/g, "\\|")}\n\n![${chart.title.replace(/[[\]]/g, "")}](benchmarks/${chart.file})`).join("\n\n")}

${noisySection ? `${noisySection.trimEnd()}\n\n` : ""}## Results per store

${targets
  .map((target) => {
    const runs = results.runs.filter((run) => run.target === target).sort((a, b) => a.n - b.n);
    const description = runs[0]?.description ?? "";
    return `### ${TARGET_NAMES[target]}\n\n${description ? `_${description.replace(/scimkit_bench_\w+/g, "<fresh schema>").replace(/\(\/tmp\/[^)]*\)/g, "(temp file)")}_\n\n` : ""}${storeTable(runs)}`;
  })
  .join("\n\n")}

## Import walk

${importWalkTable(results)}

## Seeding (through each store's API, not HTTP; not part of the figures above)

${seedingTable(results)}
${restarted.length > 0 ? `\nTargets restarted because a phase left them busy for more than ${c.timeout} s: ${restarted.map((run) => `${TARGET_NAMES[run.target]} @ ${fmtN(run.n)} (${run.restarts}×)`).join(", ")}; the phase is marked n/a and the next phase ran on a freshly seeded target.\n` : ""}${failures.length > 0 ? `\n## Failures\n\n${failures.map((run) => `- ${TARGET_NAMES[run.target]} @ ${fmtN(run.n)}: ${run.error}`).join("\n")}\n` : ""}
## Machine

| | |
| --- | --- |
| CPU | ${m.cpuModel} × ${m.cpuCount} |
| Memory | ${(m.totalMemoryBytes / 1_073_741_824).toFixed(1)} GB |
| OS | ${m.platform} |
| Node.js | ${m.nodeVersion} |
| PostgreSQL | ${m.postgresVersion ?? "not measured"} |
| Load average at start | ${m.loadAverageAtStart.join(", ")} |
| Pinning | ${m.pinned ? "targets on core 1 (`taskset -c 1`), runner and load generator on core 0" : m.tasksetAvailable ? "off (--no-taskset)" : "none (`taskset` not found): server and load generator share cores"} |

## Method

- \`npm run bench\` (never part of \`npm test\`) installs \`bench/\`'s own dependencies (autocannon, scimmy, scimmy-routers) and runs \`bench/run-bench.ts\`.
- Each measured server is its own process (\`node --import tsx bench/targets/<name>.ts\`, protocol in \`bench/target-protocol.md\`), started fresh for every store and N, on loopback. scimkit runs as the example host (\`createHostApp\` with a static token, request and event logging switched off) on the memory store, SQLite (temp file) or PostgreSQL (a fresh schema, dropped afterwards). The peer is scimmy + scimmy-routers on Express 5 with a small in-memory adapter.
- Users are seeded through each store's own API (not HTTP) with realistic bodies (\`bench/lib/user-body.ts\`: name, work and other e-mail, work address, enterprise department and employee number); user *i* is \`user{i}@dept{i%20}.example.com\`. After each bulk load the target may "settle" (\`POST /__bench/settle\`): on PostgreSQL that is \`ANALYZE\`, what autovacuum's auto-analyze does within about a minute of a bulk load anyway — without it the planner still plans for the empty tables of the fresh schema. SQLite and memory do nothing.
- Load: autocannon, closed loop, ${c.connections} keep-alive connections, ${c.warmup} s warm-up then ${c.duration} s measured per phase (phases with a finite supply of fresh work stop earlier: remove-one at 45% of the group, add-100 after ${fmtN(c.memberPool / 100)} requests, i.e. a member pool of ${fmtN(c.memberPool)} users that belong to no group). req/s counts 2xx answers per second of wall time; p50/p99 are exact percentiles of the 2xx response times; errors are connection errors, timeouts (${c.timeout} s) and non-2xx answers. A phase that completes fewer requests than connections is additionally timed serially (1 connection, up to 3 requests; "serial" in the tables), and so is the \`emails … co\` phase, whose target is a latency (10 requests): under ${c.connections} connections on one core, p50 is mostly queueing behind the other connections. After each warm-up and phase the runner waits until the target reports no request in flight, so a slow phase's stragglers (a database query keeps running after its client hangs up) do not run into the next one.
- Requests vary: GET by id picks random seeded users; \`userName eq\` random names; the deep page is 16 identity providers each walking \`startIndex\` pages of 100 one after another through the second half of the list (each asks for its next page once its last one has answered, and starts again at a random place of the second half at its end); the cursor walk starts from cursors in the second half and follows each answer's \`nextCursor\`; PATCH flips \`active\` on successive users (every request changes the user); PUT rewrites successive users with a changed name and department; POST creates new users; group phases use groups of ${c.groupSizes.map(fmtN).join(", ")} members created through the store API; each add request adds 100 users not yet in the group (the group grows as the phase runs); each remove request removes a member still present.
- "other CPU %" is the share of all cores used during the phase by processes other than the runner and the target — PostgreSQL's server processes included, so for PostgreSQL it is mostly the database; for the other stores it shows a noisy neighbour. The machine is shared; figures measured while it was busy deserve less trust.
- After each phase the runner reads the target's RSS and the maximum event-loop delay (\`perf_hooks.monitorEventLoopDelay\`, reset before the warm-up) over warm-up and phase.
- Raw results: \`${relative(options.repoRoot, options.resultsFile)}\`. Regenerate this page from them with \`npx tsx bench/run-bench.ts --report-only=${relative(options.repoRoot, options.resultsFile)}\`. Options: \`--quick\`, \`--targets=memory,sqlite,postgres,scimmy\`, \`--sizes=1000,10000\`, \`--pg-sizes=…\`, \`--no-pg-1m\`, \`--duration=3\`, \`--warmup=1\`, \`--connections=10\`, \`--group-sizes=0,10000,100000\`, \`--pool=30000\`, \`--phases=userNameEq,add100\`, \`--target-node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"\`, \`--no-taskset\`, and for the noisy-neighbour scenario \`--only=noisy\` (or \`--only=phases\`), \`--users=50000\` (A's users), \`--neighbour-users=100\`, \`--noisy-duration=10\`, \`--noisy-connections=10\`, \`--noisy-loads=lists,patch,add,bulk\`, \`--noisy-request-timeout=60\` (each also as \`BENCH_<NAME>\`; \`--name value\` works as well as \`--name=value\`). A run with \`--only=noisy\` renders this page from the results file it was generated from, with the new noisy-neighbour section; \`--report-only=<file> --noisy-results=<file>\` does the same by hand; PostgreSQL runs when \`SCIMKIT_BENCH_POSTGRES_URL\` (or \`DATABASE_URL\`) is set.
`;
  const file = join(docs, "benchmarks.md");
  // The section `npm run bench:workers` writes is not this run's: carry it over.
  writeFileSync(file, keepWorkersSection(existsSync(file) ? readFileSync(file, "utf8") : "", md));
  return file;
}
