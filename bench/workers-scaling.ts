/**
 * `npm run bench:workers` (issue 19): the host server on PostgreSQL with `SCIMKIT_WORKERS` = 1 … N
 * — the real `scimkit serve` process, a fresh schema each start, users seeded over HTTP — under a
 * read phase (GET /Users/{id}, random ids) and a write phase (PATCH replace active), next to the
 * bare Express endpoint measured in the same run (the house baseline: one process) and, as the
 * ceiling clustering can reach on this machine, bare Express as N cluster processes. Rounds
 * alternate 1 … N, 1 … N, so drift on the shared machine shows as a spread, not as a trend.
 * Writes `bench/results/<date>-workers.json` and the "Workers: 1 → N on PostgreSQL" section of
 * docs/benchmarks.md. Flags: see `lib/workers-config.ts`; `--report-only=<file>` renders a run again.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cpuSplit, cpuSplitSnapshot } from "./lib/cpu-split.js";
import { freePort, startHostServer, type RunningHostServer } from "./lib/host-server-process.js";
import { machineInfo } from "./lib/machine-info.js";
import { mergeWorkersResults } from "./lib/merge-workers-results.js";
import { analyzeSchema, createBenchSchema, serverVersion } from "./lib/postgres-schema.js";
import { renderWorkersSection } from "./lib/render-workers-section.js";
import { runLoad, type LoadRequest, type LoadStats } from "./lib/run-load.js";
import { seededRandom } from "./lib/seeded-random.js";
import { mapBounded } from "./lib/target-support.js";
import { sourceVersion } from "./lib/source-version.js";
import { startTarget } from "./lib/target-process.js";
import { patchActiveBody, USER_SCHEMA, userNameOf } from "./lib/user-body.js";
import { spliceWorkersSection } from "./lib/workers-docs-section.js";
import { readWorkersConfig } from "./lib/workers-config.js";
import type { BareRun, WorkersPhase, WorkersResults, WorkersRun } from "./lib/workers-results.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const say = (line: string): void => {
  process.stdout.write(`[bench:workers ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};
const docsFile = join(repoRoot, "docs", "benchmarks.md");
/** The lead's reading of the figures, kept across runs like bench/explanations.md. */
const readingsFile = join(repoRoot, "bench", "workers-explanations.md");
const writeDocs = (results: WorkersResults, files: readonly string[]): void => {
  const readings = existsSync(readingsFile) ? readFileSync(readingsFile, "utf8") : undefined;
  const section = renderWorkersSection(
    results,
    files.map((file) => relative(repoRoot, file)),
    readings,
  );
  writeFileSync(docsFile, spliceWorkersSection(readFileSync(docsFile, "utf8"), section));
  say(`wrote the workers section of ${relative(repoRoot, docsFile)}`);
};

// `--report-only=a.json,b.json`: the section from these runs, merged (rounds follow on).
const reportOnly = process.argv.find((arg) => arg.startsWith("--report-only="))?.slice("--report-only=".length);
if (reportOnly) {
  const files = reportOnly.split(",").map((file) => resolve(file.trim()));
  writeDocs(mergeWorkersResults(files.map((file) => JSON.parse(readFileSync(file, "utf8")) as WorkersResults)), files);
  process.exit(0);
}

const cores = availableParallelism();
const config = readWorkersConfig(process.argv.slice(2), process.env, cores);
if (!config.postgresUrl) {
  say("needs PostgreSQL: set SCIMKIT_BENCH_POSTGRES_URL (or DATABASE_URL), e.g. postgres://postgres@127.0.0.1:5432/test");
  process.exit(2);
}
const serverUrl = config.postgresUrl;
const ORG = "acme";
const TOKEN = `bench-workers-${"0123456789abcdef".repeat(3)}`;
const logDir = join(tmpdir(), `scimkit-bench-workers-${process.pid}`);

const startedAt = new Date();
const { postgresUrl: _secret, ...publicConfig } = config;
const version = sourceVersion(repoRoot);
const results: WorkersResults = {
  version: 1,
  kind: "workers",
  startedAt: startedAt.toISOString(),
  machine: { ...machineInfo(false, await serverVersion(serverUrl)), availableParallelism: cores },
  config: publicConfig,
  ...(version ? { source: version } : {}),
  bare: [],
  bareCluster: [],
  runs: [],
};
mkdirSync(join(repoRoot, "bench", "results"), { recursive: true });
const resultsFile = join(
  repoRoot,
  "bench",
  "results",
  `${startedAt
    .toISOString()
    .replace(/:/g, "-")
    .replace(/\.\d+Z$/, "Z")}${config.duration < 5 ? "-quick" : ""}-workers.json`,
);
const save = (): void => writeFileSync(resultsFile, `${JSON.stringify(results, null, 1)}\n`);

const fmt = (stats: LoadStats): string =>
  `${stats.rps.toFixed(0)} req/s  p50 ${stats.p50Ms.toFixed(2)} ms  p99 ${stats.p99Ms.toFixed(2)} ms  ok ${stats.ok}  errors ${stats.errors}${stats.errors > 0 ? ` ${JSON.stringify(stats.statusCodes)}` : ""}`;

/** Warm-up, then the measured seconds with the CPU split around them. */
async function measure(origin: string, headers: Record<string, string>, next: () => LoadRequest, hostPid: number) {
  const spec = { origin, headers, next, connections: config.connections, durationSec: config.warmup, timeoutSec: config.timeout };
  await runLoad(spec);
  const before = cpuSplitSnapshot();
  const stats = await runLoad({ ...spec, durationSec: config.duration });
  const cpu = cpuSplit(before, cpuSplitSnapshot(), hostPid, process.pid);
  return { stats, ...(cpu ? { cpu } : {}) };
}

const cpuText = (cpu: WorkersPhase["cpu"]): string =>
  cpu
    ? `  cpu: host ${cpu.hostPct.toFixed(0)}%  client ${cpu.runnerPct.toFixed(0)}%  postgres ${cpu.postgresPct.toFixed(0)}%  other ${cpu.otherPct.toFixed(0)}%  idle ${cpu.idlePct.toFixed(0)}%`
    : "";

/** Bare Express `GET /bare` as `processes` processes (1: the plain target of `npm run bench`). */
async function measureBare(at: string, processes: number): Promise<void> {
  const target = await startTarget({
    entry: processes === 1 ? "bench/targets/bare-express-target.ts" : "bench/targets/bare-express-cluster-target.ts",
    env: { PORT: String(processes === 1 ? 0 : await freePort()), BARE_WORKERS: String(processes) },
    nodeArgs: [],
    logDir,
    logName: `bare-${processes}-${results.bare.length + results.bareCluster.length}`,
    cwd: repoRoot,
  });
  try {
    const measured = await measure(target.baseUrl, {}, () => ({ method: "GET", path: "/bare" }), target.pid);
    const run: BareRun = { at, processes, ...measured };
    (processes === 1 ? results.bare : results.bareCluster).push(run);
    say(`bare Express ×${processes} (${at}): ${fmt(measured.stats)}${cpuText(measured.cpu)}`);
  } finally {
    await target.stop();
  }
  save();
}

/** POSTs `count` users through the host; returns their ids. */
async function seed(host: RunningHostServer, count: number): Promise<string[]> {
  return mapBounded(0, count, 16, async (i) => {
    const response = await fetch(`${host.origin}${host.scimBase}/Users`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/scim+json" },
      body: JSON.stringify({
        schemas: [USER_SCHEMA],
        userName: userNameOf(i),
        externalId: `ext-${i}`,
        active: true,
        name: { givenName: "Ada", familyName: `Lovelace${i}` },
        emails: [{ value: userNameOf(i), type: "work", primary: true }],
      }),
    });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`seeding user ${i}: ${response.status} ${text.slice(0, 300)}`);
    return (JSON.parse(text) as { id: string }).id;
  });
}

async function measureHost(workers: number, round: number): Promise<WorkersRun> {
  const schema = await createBenchSchema(serverUrl, `n${workers}_r${round}`);
  const phases: WorkersPhase[] = [];
  const run: { -readonly [K in keyof WorkersRun]: WorkersRun[K] } = {
    workers,
    round,
    phases,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
  let host: RunningHostServer | undefined;
  try {
    host = await startHostServer({
      env: {
        DATABASE_URL: schema.url,
        SCIMKIT_WORKERS: String(workers),
        // The figures are the service's, not its per-organization limit's.
        SCIMKIT_RATE_LIMIT: "off",
        SCIMKIT_ORGS: `${ORG}:${TOKEN}`,
        SCIMKIT_DEMO_DATA: "0",
      },
      cwd: repoRoot,
      logDir,
      logName: `host-${workers}-round${round}`,
      orgId: ORG,
    });
    run.logFile = host.logFile;
    const seedStart = performance.now();
    const ids = await seed(host, config.users);
    const ms = performance.now() - seedStart;
    run.seeding = { users: config.users, ms, perSecond: config.users / (ms / 1000) };
    await analyzeSchema(serverUrl, schema.name);
    say(`workers=${workers} round ${round}: seeded ${config.users} users in ${(ms / 1000).toFixed(1)} s`);
    const headers = { authorization: `Bearer ${TOKEN}` };
    const random = seededRandom(workers * 100 + round);
    const base = host.scimBase;
    const read = await measure(
      host.origin,
      headers,
      () => ({ method: "GET", path: `${base}/Users/${ids[Math.floor(random() * ids.length)]}` }),
      host.pid,
    );
    phases.push({ key: "read", label: "GET /Users/{id}", ...read });
    say(`workers=${workers} round ${round} read: ${fmt(read.stats)}${cpuText(read.cpu)}`);
    // Successive users, flipping each time round, so every request changes the user it names.
    let k = 0;
    const write = await measure(
      host.origin,
      headers,
      () => {
        const i = k % ids.length;
        const active = Math.floor(k / ids.length) % 2 === 1;
        k += 1;
        return { method: "PATCH", path: `${base}/Users/${ids[i]}`, body: patchActiveBody(active) };
      },
      host.pid,
    );
    phases.push({ key: "write", label: "PATCH replace active", ...write });
    say(`workers=${workers} round ${round} write: ${fmt(write.stats)}${cpuText(write.cpu)}`);
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
    say(`workers=${workers} round ${round}: FAILED — ${run.error}`);
  } finally {
    if (host) {
      run.exitCode = await host.stop();
      if (run.exitCode !== 0 && !run.error) run.error = `the host exited ${String(run.exitCode)} after SIGTERM (log: ${host.logFile})`;
    }
    await schema.drop();
  }
  return run;
}

say(
  `results → ${relative(repoRoot, resultsFile)}; logs → ${logDir}; ${cores} cores; workers ${config.workers.join(", ")} × ${config.rounds} rounds`,
);
try {
  await measureBare("start", 1);
  for (let round = 1; round <= config.rounds; round += 1) {
    for (const workers of config.workers) {
      results.runs.push(await measureHost(workers, round));
      save();
    }
    await measureBare(`after round ${round}`, 1);
    if (config.bareCluster) for (const workers of config.workers.filter((count) => count > 1)) await measureBare(`round ${round}`, workers);
  }
} finally {
  results.finishedAt = new Date().toISOString();
  save();
  say(`results in ${relative(repoRoot, resultsFile)}`);
}
if (!config.noDocs) writeDocs(results, [resultsFile]);
