/**
 * `npm run bench`: measures scimkit's host server over HTTP on loopback — memory store, SQLite,
 * PostgreSQL (when SCIMKIT_BENCH_POSTGRES_URL is set) and the scimmy peer — against a bare
 * Express endpoint measured in the same run, plus the noisy-neighbour scenario of issue 12 per
 * scimkit store (`lib/run-noisy-neighbour.ts`), then writes `bench/results/<date>.json` and
 * regenerates `docs/benchmarks.md`. Flags: see `lib/bench-config.ts` (`--quick` for a smoke run,
 * `--only=noisy` for the scenario alone).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readConfig, type BenchConfig, type RequestLogKind, type TargetKind } from "./lib/bench-config.js";
import { baselineOf, withRatios, type BenchResults, type PhaseResult, type TargetRun } from "./lib/bench-results.js";
import { readMetrics, scimHeaders, seedGroup, seedUsers, settle } from "./lib/control-client.js";
import { cpuPerRequestUs, cpuShares, cpuSnapshot } from "./lib/cpu-accounting.js";
import { drainTarget, TargetBusy } from "./lib/drain-target.js";
import { describeWalk, importWalk } from "./lib/import-walk.js";
import { hasTaskset, machineInfo, pinSelf } from "./lib/machine-info.js";
import { formatVersion, sourceVersion } from "./lib/source-version.js";
import {
  GROUP_PHASES,
  PHASE_LABELS,
  USER_PHASES,
  prepareGroupPhase,
  prepareUserPhase,
  type GroupSetup,
  type PreparedPhase,
} from "./lib/phase-catalog.js";
import { mergeNoisyResults, reportedResultsFile } from "./lib/merge-noisy-results.js";
import { renderReport } from "./lib/render-report.js";
import { requestLogCostTable, requestLogCosts } from "./lib/request-log-cost.js";
import { runNoisyNeighbour } from "./lib/run-noisy-neighbour.js";
import { runLoad, type LoadStats } from "./lib/run-load.js";
import type { MetricsResponse } from "./lib/target-protocol.js";
import { startTarget, type RunningTarget } from "./lib/target-process.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const config = readConfig(process.argv.slice(2), process.env);
const say = (line: string): void => {
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

if (config.reportOnly) {
  const file = resolve(config.reportOnly);
  const base = withRatios(JSON.parse(readFileSync(file, "utf8")) as BenchResults);
  const noisyFile = config.noisyResults ? resolve(config.noisyResults) : undefined;
  const results = noisyFile
    ? mergeNoisyResults(base, JSON.parse(readFileSync(noisyFile, "utf8")) as BenchResults, relative(repoRoot, noisyFile))
    : base;
  say(`wrote ${renderReport(results, { repoRoot, resultsFile: file })}`);
  process.exit(0);
}

const pinned = config.pin && cpus().length >= 2 && hasTaskset() && pinSelf(0);
const targetCore = pinned ? 1 : undefined;
const logDir = join(tmpdir(), `scimkit-bench-logs-${process.pid}`);

async function postgresVersion(url: string | undefined): Promise<string | undefined> {
  if (!url) return undefined;
  try {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const result = await client.query<{ server_version: string }>("show server_version");
    await client.end();
    return result.rows[0]?.server_version;
  } catch (error) {
    return `unreachable (${String(error)})`;
  }
}

const startedAt = new Date();
const { postgresUrl: _secret, ...publicConfig } = config;
const results: BenchResults = {
  version: 1,
  startedAt: startedAt.toISOString(),
  machine: machineInfo(pinned, await postgresVersion(config.postgresUrl)),
  config: { ...publicConfig, postgres: config.postgresUrl !== undefined },
  bare: [],
  runs: [],
  ...(sourceVersion(repoRoot) ? { source: sourceVersion(repoRoot) } : {}),
};
const resultsDir = join(repoRoot, "bench", "results");
mkdirSync(resultsDir, { recursive: true });
const suffix = `${config.quick ? "-quick" : ""}${config.only.includes("phases") ? "" : "-noisy"}`;
const resultsFile = join(
  resultsDir,
  `${startedAt
    .toISOString()
    .replace(/:/g, "-")
    .replace(/\.\d+Z$/, "Z")}${suffix}.json`,
);
const save = (): void => writeFileSync(resultsFile, `${JSON.stringify(results, null, 1)}\n`);

const fmt = (stats: LoadStats): string =>
  `${stats.rps.toFixed(stats.rps >= 100 ? 0 : 1)} req/s  p50 ${stats.p50Ms.toFixed(2)} ms  p99 ${stats.p99Ms.toFixed(2)} ms  ok ${stats.ok}  errors ${stats.errors}${stats.errors > 0 ? ` ${JSON.stringify(stats.statusCodes)}` : ""}`;

function loadSpec(target: RunningTarget, phase: Pick<PreparedPhase, "next" | "onResponse" | "maxRequests">, durationSec: number) {
  return {
    origin: target.baseUrl,
    headers: scimHeaders(target),
    next: () => {
      const request = phase.next();
      return { ...request, path: `${target.ready.scimBase}${request.path}` };
    },
    ...(phase.onResponse ? { onResponse: phase.onResponse } : {}),
    ...(phase.maxRequests ? { maxRequests: phase.maxRequests } : {}),
    connections: config.connections,
    durationSec,
    timeoutSec: config.timeout,
  };
}

async function measurePhase(target: RunningTarget, prepared: PreparedPhase, context: string): Promise<PhaseResult> {
  const base = {
    key: prepared.key,
    label: PHASE_LABELS[prepared.key],
    ...(prepared.groupSize === undefined ? {} : { groupSize: prepared.groupSize }),
  };
  const name = `${context} ${prepared.key}${prepared.groupSize === undefined ? "" : `@${prepared.groupSize}`}`;
  if (prepared.unsupported) {
    say(`${name}: skipped — ${prepared.unsupported}`);
    return { ...base, unsupported: prepared.unsupported };
  }
  await drain(target); // also resets the event-loop histogram
  let maxDelay = 0;
  if (config.warmup > 0) {
    const warm = prepared.warmup ?? prepared;
    await runLoad(
      loadSpec(
        target,
        {
          next: warm.next,
          ...(warm.onResponse ? { onResponse: warm.onResponse } : {}),
          ...(prepared.warmup?.maxRequests ? { maxRequests: prepared.warmup.maxRequests } : {}),
        },
        config.warmup,
      ),
    );
    maxDelay = Math.max(maxDelay, (await drain(target)).maxEventLoopDelayMs);
    const until = performance.now() + config.timeout * 1000;
    while (prepared.warmup?.ready && !prepared.warmup.ready() && performance.now() < until) {
      const { next, onResponse } = prepared.warmup;
      await runLoad(loadSpec(target, { next, ...(onResponse ? { onResponse } : {}) }, config.warmup));
      maxDelay = Math.max(maxDelay, (await drain(target)).maxEventLoopDelayMs);
    }
  }
  const cpuBefore = cpuSnapshot([process.pid, target.pid]);
  const targetBefore = cpuSnapshot([target.pid]);
  const stats = await runLoad(loadSpec(target, prepared, config.duration));
  const cpu = cpuShares(cpuBefore, cpuSnapshot([process.pid, target.pid]));
  const metrics = await drain(target);
  // After the drain: work a request leaves for later (the provisioning log's entry) counts too.
  const targetCpuUs = cpuPerRequestUs(targetBefore, cpuSnapshot([target.pid]), stats.ok + stats.errors);
  maxDelay = Math.max(maxDelay, metrics.maxEventLoopDelayMs);
  say(
    `${name}: ${fmt(stats)}${targetCpuUs === undefined ? "" : `  cpu ${targetCpuUs.toFixed(0)} µs/req`}  rss ${(metrics.rssBytes / 1_048_576).toFixed(0)} MB  max-eld ${maxDelay.toFixed(1)} ms${cpu ? `  other-cpu ${cpu.otherCpuPct.toFixed(0)}% steal ${cpu.stealPct.toFixed(0)}%` : ""}`,
  );
  let serial: LoadStats | undefined;
  if (stats.ok < config.connections || prepared.alsoSerial) {
    // Too slow to finish even one request per connection under load (or a latency target):
    // time a few requests on their own.
    const count = stats.ok < config.connections ? 3 : (prepared.alsoSerial ?? 3);
    serial = await runLoad({ ...loadSpec(target, prepared, config.serialTimeout), connections: 1, maxRequests: count });
    const after = await drain(target);
    maxDelay = Math.max(maxDelay, after.maxEventLoopDelayMs);
    say(`${name}: serial (1 connection, ≤${count} requests): ${fmt(serial)}`);
  }
  return {
    ...base,
    stats,
    ...(serial ? { serial } : {}),
    rssBytes: metrics.rssBytes,
    heapUsedBytes: metrics.heapUsedBytes,
    maxEventLoopDelayMs: maxDelay,
    ...(targetCpuUs === undefined ? {} : { targetCpuUsPerRequest: targetCpuUs }),
    ...(cpu ? { otherCpuPct: cpu.otherCpuPct, stealPct: cpu.stealPct } : {}),
  };
}

/** Waits until the target is idle; see `lib/drain-target.ts`. */
const drain = (target: RunningTarget): Promise<MetricsResponse> => drainTarget(target, config.timeout);

const wanted = (key: string): boolean =>
  config.phaseFilter.length === 0 || config.phaseFilter.some((part) => key.toLowerCase().includes(part.toLowerCase()));

async function measureBare(at: string): Promise<void> {
  const target = await startTarget({
    entry: "bench/targets/bare-express-target.ts",
    env: { PORT: "0" },
    ...(targetCore === undefined ? {} : { pinToCore: targetCore }),
    nodeArgs: [],
    logDir,
    logName: `bare-${results.bare.length}`,
    cwd: repoRoot,
  });
  try {
    const phase = { next: () => ({ method: "GET" as const, path: "/bare" }) };
    const spec = { ...loadSpec(target, phase, config.warmup), headers: {} };
    if (config.warmup > 0) await runLoad(spec);
    const cpuBefore = cpuSnapshot([process.pid, target.pid]);
    const stats = await runLoad({ ...spec, durationSec: config.duration });
    const cpu = cpuShares(cpuBefore, cpuSnapshot([process.pid, target.pid]));
    results.bare.push({ at, stats, ...(cpu ? { otherCpuPct: cpu.otherCpuPct, stealPct: cpu.stealPct } : {}) });
    say(`bare Express (${at}): ${fmt(stats)}${cpu ? `  other-cpu ${cpu.otherCpuPct.toFixed(0)}% steal ${cpu.stealPct.toFixed(0)}%` : ""}`);
  } finally {
    await target.stop();
  }
  save();
}

function seedingOf(users: number, ms: number) {
  return { users, ms, perSecond: users / (ms / 1000) };
}

async function runTarget(kind: TargetKind, n: number, requestLog: RequestLogKind): Promise<TargetRun> {
  const entry = kind === "scimmy" ? "bench/targets/scimmy-target.ts" : "bench/targets/scimkit-target.ts";
  const logged = requestLog === "off" ? undefined : requestLog;
  const context = `${kind}@${n}${logged ? ` log=${logged}` : ""}`;
  if (!existsSync(join(repoRoot, entry))) return { target: kind, n, description: "", phases: [], error: `${entry} does not exist` };
  const env: Record<string, string> = { PORT: "0" };
  if (kind !== "scimmy") env["STORE"] = kind;
  if (logged) env["REQUEST_LOG"] = logged;
  if (kind === "postgres" && config.postgresUrl) env["SCIMKIT_BENCH_POSTGRES_URL"] = config.postgresUrl;
  let target: RunningTarget | undefined;
  const phases: PhaseResult[] = [];
  const version = sourceVersion(repoRoot);
  const run: { -readonly [K in keyof TargetRun]: TargetRun[K] } = {
    target: kind,
    n,
    description: "",
    ...(logged ? { requestLog: logged } : {}),
    phases,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    ...(version ? { source: version } : {}),
  };
  const boot = async (restart: number): Promise<{ target: RunningTarget; userIds: string[] }> => {
    const started = await startTarget({
      entry,
      env,
      ...(targetCore === undefined ? {} : { pinToCore: targetCore }),
      // --expose-gc only lets `metrics?gc=1` collect before the RSS readings around seeding.
      nodeArgs: ["--expose-gc", ...config.targetNodeArgs],
      logDir,
      logName: `${kind}-${n}${logged ? `-log-${logged}` : ""}${restart === 0 ? "" : `-restart${restart}`}`,
      cwd: repoRoot,
    });
    target = started;
    if (restart > 0) {
      say(`${context}: restarted the target (${restart}); seeding ${n.toLocaleString("en-US")} users again`);
      const userIds = await seedUsers(started, 0, n, config.seedChunk);
      await settle(started);
      return { target: started, userIds };
    }
    run.logFile = started.logFile;
    run.description = started.ready.description ?? "";
    const empty = await readMetrics(started, true);
    run.rssEmptyBytes = empty.rssBytes;
    say(`${context}: seeding ${n.toLocaleString("en-US")} users (${run.description})`);
    let lastReport = performance.now();
    const seedStart = performance.now();
    const userIds = await seedUsers(started, 0, n, config.seedChunk, ({ done, total, elapsedMs }) => {
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        say(`${context}: seeded ${done}/${total} (${Math.round(done / (elapsedMs / 1000))}/s)`);
      }
    });
    run.seeding = seedingOf(n, performance.now() - seedStart);
    const settleMs = await settle(started);
    if (settleMs !== undefined) run.settleMs = settleMs;
    const seeded = await readMetrics(started, true);
    run.rssSeededBytes = seeded.rssBytes;
    run.heapSeededBytes = seeded.heapUsedBytes;
    say(
      `${context}: seeded in ${(run.seeding.ms / 1000).toFixed(1)} s (${Math.round(run.seeding.perSecond)}/s), rss ${(seeded.rssBytes / 1_048_576).toFixed(0)} MB`,
    );
    return { target: started, userIds };
  };

  /** A phase left the target busy past the timeout: record why, and start afresh for the next one. */
  let restarts = 0;
  const recover = async (
    phase: Pick<PhaseResult, "key" | "groupSize">,
    error: unknown,
  ): Promise<{ target: RunningTarget; userIds: string[] }> => {
    const reason = `the target was still busy ${config.timeout} s after the phase (${error instanceof Error ? error.message : String(error)}); it was restarted for the next phase`;
    say(`${context} ${phase.key}${phase.groupSize === undefined ? "" : `@${phase.groupSize}`}: ${reason}`);
    phases.push({ ...phase, label: PHASE_LABELS[phase.key], unsupported: reason });
    await target?.stop();
    restarts += 1;
    run.restarts = restarts;
    if (restarts > 8) throw new Error("more than 8 restarts");
    return boot(restarts);
  };

  try {
    let current = await boot(0);
    for (const key of USER_PHASES.filter(wanted)) {
      try {
        const prepared = await prepareUserPhase(key, { target: current.target, n, userIds: current.userIds, seed: n + key.length });
        phases.push(await measurePhase(current.target, prepared, context));
      } catch (error) {
        if (!(error instanceof TargetBusy)) throw error;
        current = await recover({ key }, error);
      }
    }

    // After the user phases, on what they left (the POST phase's users too): an identity
    // provider's full import, by startIndex and by cursor, each timed whole. Not the peer's: its
    // every page scans the list, so a walk of 100,000 would take the run's hour by itself.
    if (kind !== "scimmy" && wanted("users.importWalk")) {
      await drain(current.target);
      run.importWalk = await importWalk(current.target);
      const { byIndex, byCursor } = run.importWalk;
      say(`${context} import walk by startIndex: ${describeWalk(byIndex)}`);
      if (byCursor)
        say(
          `${context} import walk by cursor: ${describeWalk(byCursor)} (startIndex ÷ cursor ${(byIndex.totalMs / byCursor.totalMs).toFixed(2)}×)`,
        );
    }

    const groupSizes = config.groupSizes.filter((size) => size <= n);
    const groupKeys = GROUP_PHASES.filter(wanted);
    if (groupSizes.length > 0 && groupKeys.length > 0) {
      const setUpGroups = async (on: { target: RunningTarget; userIds: string[] }) => {
        const poolStart = performance.now();
        const poolIds =
          groupKeys.includes("groups.add100") && config.memberPool > 0
            ? await seedUsers(on.target, n, config.memberPool, config.seedChunk)
            : [];
        if (poolIds.length > 0 && !run.poolSeeding) run.poolSeeding = seedingOf(poolIds.length, performance.now() - poolStart);
        const groups = new Map<number, GroupSetup>();
        for (const size of groupSizes) {
          const started = performance.now();
          const group = await seedGroup(on.target, { memberCount: size });
          const warm = await seedGroup(on.target, { memberCount: 0 });
          say(`${context}: group of ${group.memberCount} created in ${((performance.now() - started) / 1000).toFixed(1)} s`);
          if (group.memberCount !== size) throw new Error(`seed-group made ${group.memberCount} members, not ${size}`);
          groups.set(size, { groupSize: size, groupId: group.id, warmGroupId: warm.id, userIds: on.userIds, poolIds });
        }
        await settle(on.target);
        return groups;
      };
      let groups = await setUpGroups(current);
      for (const key of groupKeys) {
        for (const size of groupSizes) {
          try {
            phases.push(await measurePhase(current.target, prepareGroupPhase(key, groups.get(size) as GroupSetup), context));
          } catch (error) {
            if (!(error instanceof TargetBusy)) throw error;
            current = await recover({ key, groupSize: size }, error);
            groups = await setUpGroups(current);
          }
        }
      }
    }
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
    say(`${context}: FAILED — ${run.error}${target ? ` (log: ${target.logFile})` : ""}`);
  } finally {
    if (target?.exited() && !run.error) run.error = `target exited early (log: ${target.logFile})`;
    await target?.stop();
  }
  return run;
}

function sizesFor(kind: TargetKind, settings: BenchConfig): readonly number[] {
  return kind === "postgres" ? settings.postgresSizes : kind === "scimmy" ? settings.peerSizes : settings.sizes;
}

/**
 * What the report is rendered from. A run of the noisy-neighbour scenario alone keeps the page's
 * other figures: they come from the results file the page was generated from, this run adds its
 * noisy-neighbour section.
 */
function reportInputs(): [BenchResults, { repoRoot: string; resultsFile: string }] {
  if (config.only.includes("phases")) return [results, { repoRoot, resultsFile }];
  const previous = reportedResultsFile(repoRoot);
  if (!previous) return [results, { repoRoot, resultsFile }];
  const base = withRatios(JSON.parse(readFileSync(join(repoRoot, previous), "utf8")) as BenchResults);
  return [mergeNoisyResults(base, results, relative(repoRoot, resultsFile)), { repoRoot, resultsFile: join(repoRoot, previous) }];
}

say(
  `results → ${resultsFile}; target logs → ${logDir}; pinning ${pinned ? "on (targets core 1, runner core 0)" : "off"}; code ${formatVersion(results.source)}`,
);
try {
  await measureBare("start");
  for (const kind of config.targets) {
    if (config.only.includes("phases")) {
      for (const n of sizesFor(kind, config)) {
        // The peer has no provisioning log: it runs once, as without one.
        for (const requestLog of kind === "scimmy" ? (["off"] as const) : config.requestLogs) {
          results.runs.push(await runTarget(kind, n, requestLog));
          save();
        }
      }
    }
    if (config.only.includes("noisy") && kind !== "scimmy") {
      // The scenario needs two organizations of one server: the scimkit target only.
      results.noisy ??= [];
      results.noisy.push(
        await runNoisyNeighbour(kind, config, { repoRoot, logDir, ...(targetCore === undefined ? {} : { targetCore }), say }),
      );
      save();
    }
    await measureBare(`after ${kind}`);
  }
} finally {
  results.finishedAt = new Date().toISOString();
  withRatios(results);
  save();
  const baseline = baselineOf(results.bare);
  say(`baseline ${baseline.rps.toFixed(0)} req/s, p50 ${baseline.p50Ms.toFixed(2)} ms; results in ${resultsFile}`);
  const costs = requestLogCosts(results);
  if (costs.length > 0) say(`the provisioning log's cost (log on ÷ log off, same run):\n${requestLogCostTable(costs)}`);
  if (!config.noDocs) say(`wrote ${renderReport(...reportInputs())}`);
}
