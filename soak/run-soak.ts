/**
 * `npm run soak`: the host server (`server/src/host/cli.ts serve`, a real process) under an
 * identity provider's mixed traffic for a long while, reporting the error rate, latency
 * percentiles and the host's RSS every 10 s, and failing when RSS keeps growing (`rss-growth.ts`)
 * or more than 0.1 % of requests fail. Not part of `npm test`.
 *
 * - `SOAK_SECONDS` (default 600): how long the workload runs.
 * - `DATABASE_URL`: the host's store, as `npm start` reads it; default a fresh SQLite file in a
 *   temporary directory (the host's default store, without touching ./data).
 * - `SOAK_RPS` (default 200): requests per second over all organizations.
 * - `SOAK_ORGS` (default 4), `SOAK_WORKERS` (per organization, default 4), `SOAK_POPULATION`
 *   (users per organization, default 1000), `SOAK_SEED` (default 7).
 * - `SOAK_SAMPLE_SECONDS` (default 10): the RSS and window interval.
 * - `SOAK_RSS_LIMIT_PERCENT` (default 5): how far the last third's median RSS may sit above the
 *   middle third's.
 *
 * Results: `soak/results/<start>.json` and `.md`.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { execFileSync } from "node:child_process";
import { startIdpWorkload } from "./idp-workload.js";
import { latencyRecorder, type LatencySummary } from "./latency-recorder.js";
import { RSS_GROWTH_LIMIT_PERCENT, rssGrowth, type RssSample } from "./rss-growth.js";
import { soakSummary, type SoakResult, type SoakWindow } from "./soak-summary.js";

/** The share of requests that may fail before the run does. */
const MAX_ERROR_RATE = 0.001;

function positiveNumber(name: string, fallback: number): number {
  const text = process.env[name]?.trim();
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number; got ${JSON.stringify(text)}`);
  return value;
}

/** The host's resident set size in MiB, from /proc (Linux) or ps. */
function rssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    if (match) return Number(match[1]) / 1024;
  } catch {
    // Not Linux: ps below.
  }
  return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim()) / 1024;
}

/** HEAD, and whether the code the host ran differs from it (work in progress in src or examples). */
function gitCommit(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const changed = execFileSync("git", ["status", "--porcelain", "--", "src", "examples"], { encoding: "utf8" }).trim() !== "";
    return changed ? `${head} with uncommitted changes in src/ or examples/` : head;
  } catch {
    return "unknown";
  }
}

const round = (value: number, digits = 1): number => Number(value.toFixed(digits));
const roundLatency = (latency: LatencySummary): LatencySummary => ({
  count: latency.count,
  p50Ms: round(latency.p50Ms, 2),
  p90Ms: round(latency.p90Ms, 2),
  p99Ms: round(latency.p99Ms, 2),
  meanMs: round(latency.meanMs, 2),
  maxMs: round(latency.maxMs, 2),
});

async function main(): Promise<void> {
  const seconds = positiveNumber("SOAK_SECONDS", 600);
  const requestsPerSecond = positiveNumber("SOAK_RPS", 200);
  const organizationCount = Math.round(positiveNumber("SOAK_ORGS", 4));
  const workersPerOrganization = Math.round(positiveNumber("SOAK_WORKERS", 4));
  const population = Math.round(positiveNumber("SOAK_POPULATION", 1000));
  const seed = Math.round(positiveNumber("SOAK_SEED", 7));
  const sampleSeconds = positiveNumber("SOAK_SAMPLE_SECONDS", 10);
  const rssLimitPercent = positiveNumber("SOAK_RSS_LIMIT_PERCENT", RSS_GROWTH_LIMIT_PERCENT);

  const scratch = mkdtempSync(join(tmpdir(), "scimkit-soak-"));
  const databaseUrl = process.env["DATABASE_URL"]?.trim() || `sqlite:${join(scratch, "soak.db")}`;
  const tokens = Array.from(
    { length: organizationCount },
    (_, index) => [`soak${index + 1}`, `soak-${randomBytes(16).toString("hex")}`] as const,
  );

  const startedAt = new Date();
  // Read now: the code the host runs is the code of the start, whatever is committed meanwhile.
  const commit = gitCommit();
  const stamp = startedAt
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-");
  console.log(
    `soak: ${seconds} s at ${requestsPerSecond} req/s over ${organizationCount} organizations, store ${databaseUrl.replace(/\/\/[^@/]*@/, "//…@")}`,
  );

  const host = spawn(process.execPath, ["--conditions=scimkit-source", "--import", "tsx", "server/src/host/cli.ts", "serve"], {
    env: {
      ...process.env,
      PORT: "0",
      DATABASE_URL: databaseUrl,
      SCIMKIT_ORGS: tokens.map(([org, token]) => `${org}:${token}`).join(","),
      SCIMKIT_DEMO_DATA: "0",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Never leave the host running behind a run that failed.
  process.once("exit", () => {
    if (host.exitCode === null) host.kill("SIGKILL");
  });
  const hostErrors: string[] = [];
  const bases = new Map<string, string>();
  let hostLines = 0;
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: host.stdout }).on("line", (line) => {
      hostLines += 1;
      const base = /^SCIM base URL for (\S+): (\S+)$/.exec(line);
      if (base) bases.set(base[1] as string, base[2] as string);
      if (/^Analytics interface:/.test(line)) resolve();
      if (line.startsWith("error ") && hostErrors.length < 20) hostErrors.push(line.slice(0, 500));
    });
    createInterface({ input: host.stderr }).on("line", (line) => {
      if (hostErrors.length < 20) hostErrors.push(`stderr: ${line.slice(0, 500)}`);
    });
    host.once("exit", (code) => reject(new Error(`the host exited (${code}) before it was ready: ${hostErrors.join("\n")}`)));
  });
  await ready;
  const pid = host.pid as number;
  let hostExit: number | null | undefined;
  host.on("exit", (code) => {
    hostExit = code;
  });

  let state = seed >>> 0;
  const random = (): number => {
    // mulberry32: the same seed sends the same operations in the same order.
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const latencies = latencyRecorder();
  const clientErrors: string[] = [];
  const workload = await startIdpWorkload({
    organizations: tokens.map(([org, token]) => ({ base: bases.get(org) as string, token })),
    requestsPerSecond,
    workersPerOrganization,
    population,
    groupsPerOrganization: 10,
    random,
    latencies,
    onError: (description) => {
      if (clientErrors.length < 20) clientErrors.push(description);
    },
  });
  latencies.closeWindow();

  const began = performance.now();
  const rss: RssSample[] = [{ atSeconds: 0, rssMiB: round(rssMiB(pid)) }];
  const windows: SoakWindow[] = [];
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const atSeconds = round((performance.now() - began) / 1000, 0);
      const window = latencies.closeWindow();
      const sample = hostExit === undefined ? round(rssMiB(pid)) : Number.NaN;
      rss.push({ atSeconds, rssMiB: sample });
      windows.push({
        atSeconds,
        requests: window.requests,
        errors: window.errors,
        p50Ms: round(window.latency.p50Ms, 2),
        p99Ms: round(window.latency.p99Ms, 2),
        rssMiB: sample,
        liveUsers: workload.liveUsers(),
      });
      console.log(
        `${String(atSeconds).padStart(5)} s  ${String(window.requests).padStart(6)} req  ${String(window.errors).padStart(3)} err  ` +
          `p50 ${window.latency.p50Ms.toFixed(1)} ms  p99 ${window.latency.p99Ms.toFixed(1)} ms  RSS ${sample} MiB  users ${workload.liveUsers()}`,
      );
      if (atSeconds >= seconds || hostExit !== undefined) {
        clearInterval(timer);
        resolve();
      }
    }, sampleSeconds * 1000);
  });
  await workload.stop();
  const elapsedSeconds = (performance.now() - began) / 1000;

  const stopStarted = performance.now();
  const exited = new Promise<number | null>((resolve) => (hostExit !== undefined ? resolve(hostExit) : host.once("exit", resolve)));
  host.kill("SIGTERM");
  const exitCode = await exited;
  const stopMs = performance.now() - stopStarted;
  rmSync(scratch, { recursive: true, force: true });

  const overall = latencies.overall();
  const verdict = rssGrowth(
    rss.filter((sample) => Number.isFinite(sample.rssMiB)),
    rssLimitPercent,
  );
  const errorRate = overall.requests === 0 ? 1 : overall.errors / overall.requests;
  const failures = [
    ...(verdict.bounded
      ? []
      : [`RSS grew ${verdict.growthPercent.toFixed(1)} % from the middle third to the last (limit ${verdict.limitPercent} %)`]),
    ...(errorRate > MAX_ERROR_RATE ? [`error rate ${(errorRate * 100).toFixed(3)} % is above ${MAX_ERROR_RATE * 100} %`] : []),
    ...(hostExit !== undefined && exitCode !== 0 ? [`the host exited (${exitCode}) during the run`] : []),
    ...(exitCode !== 0 ? [`the host exited ${exitCode} on SIGTERM`] : []),
  ];
  const result: SoakResult = {
    startedAt: startedAt.toISOString(),
    commit,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      memoryGiB: round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
    },
    config: {
      seconds,
      requestsPerSecond,
      organizations: organizationCount,
      workersPerOrganization,
      population,
      seed,
      sampleSeconds,
      store: databaseUrl.startsWith("sqlite:") ? "SQLite (a fresh file)" : (databaseUrl.split(":")[0] ?? ""),
    },
    elapsedSeconds: round(elapsedSeconds),
    requests: overall.requests,
    errors: overall.errors,
    errorRatePercent: round(errorRate * 100, 4),
    achievedRequestsPerSecond: round(overall.requests / elapsedSeconds),
    latency: roundLatency(overall.latency),
    operations: Object.fromEntries(
      Object.entries(latencies.totals()).map(([operation, totals]) => [
        operation,
        { requests: totals.requests, errors: totals.errors, latency: roundLatency(totals.latency) },
      ]),
    ),
    rss: verdict,
    windows,
    hostLogLines: hostLines,
    errorSamples: [...clientErrors, ...hostErrors],
    shutdown: { exitCode, ms: round(stopMs, 0) },
    passed: failures.length === 0,
    failures,
  };
  mkdirSync("soak/results", { recursive: true });
  writeFileSync(`soak/results/${stamp}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`soak/results/${stamp}.md`, soakSummary(result));
  console.log(`\n${soakSummary(result)}`);
  console.log(`results: soak/results/${stamp}.json and .md`);
  process.exitCode = result.passed ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
