/**
 * Two scimkit targets measured in alternation, for a ratio a busy machine disturbs little: both are
 * started and seeded alike, then each phase runs in short rounds A, B, B, A, A, B, … so that
 * whatever else the machine does falls on both about equally. Used for the provisioning log's cost
 * (issue 18: the same code with `REQUEST_LOG=memory` and without) and for a regression against an
 * older commit (B's code from another worktree).
 *
 *   npx tsx bench/one-off/alternate-targets.ts --store=memory --n=10000 \
 *     --phases=getById,userNameEq,patchActive,put,post --rounds=8 --seconds=1.5 \
 *     --a-env=REQUEST_LOG=off --b-env=REQUEST_LOG=memory [--a-root=/work/wt/base] [--b-root=.] [--node-args="--cpu-prof"]
 *
 * Prints, per phase, the median throughput and target CPU per request of each side and B ÷ A, and
 * writes them to `bench/results/<date>-alternating.json`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { flags } from "../lib/bench-config.js";
import { scimHeaders, seedUsers, settle } from "../lib/control-client.js";
import { cpuPerRequestUs, cpuShares, cpuSnapshot } from "../lib/cpu-accounting.js";
import { drainTarget } from "../lib/drain-target.js";
import { hasTaskset, pinSelf } from "../lib/machine-info.js";
import { USER_PHASES, prepareUserPhase, type PreparedPhase } from "../lib/phase-catalog.js";
import { runLoad } from "../lib/run-load.js";
import { formatVersion, sourceVersion } from "../lib/source-version.js";
import { startTarget, type RunningTarget } from "../lib/target-process.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const given = flags(process.argv.slice(2));
const store = given.get("store") ?? "memory";
const n = Number(given.get("n") ?? 10_000);
const rounds = Number(given.get("rounds") ?? 8);
const seconds = Number(given.get("seconds") ?? 1.5);
const connections = Number(given.get("connections") ?? 10);
const wantedPhases = (given.get("phases") ?? "getById,userNameEq,patchActive,put,post").split(",");
const phases = USER_PHASES.filter((key) => wantedPhases.some((wanted) => key.includes(wanted)));
const envOf = (text: string | undefined): Record<string, string> =>
  Object.fromEntries(
    (text ?? "")
      .split(",")
      .filter((pair) => pair.includes("="))
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
const sides = [
  { name: "A", root: resolve(given.get("a-root") ?? repoRoot), env: envOf(given.get("a-env")) },
  { name: "B", root: resolve(given.get("b-root") ?? repoRoot), env: envOf(given.get("b-env")) },
] as const;
const say = (line: string): void => {
  process.stdout.write(`[alternate ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

const pinned = cpus().length >= 2 && hasTaskset() && pinSelf(0);
const logDir = join(tmpdir(), `scimkit-alternate-${process.pid}`);
const targets: RunningTarget[] = [];
const userIds: string[][] = [];
for (const side of sides) {
  const target = await startTarget({
    entry: "bench/targets/scimkit-target.ts",
    env: { PORT: "0", STORE: store, ...side.env },
    ...(pinned ? { pinToCore: 1 } : {}),
    // `--node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"` profiles both sides (one file per process).
    nodeArgs: ["--expose-gc", ...(given.get("node-args") ?? "").split(" ").filter((arg) => arg !== "")],
    logDir,
    logName: `side-${side.name}`,
    cwd: side.root,
  });
  targets.push(target);
  userIds.push(await seedUsers(target, 0, n, 10_000));
  // As the main runner does: on PostgreSQL, ANALYZE, without which the planner plans for empty tables.
  await settle(target);
  say(
    `${side.name}: ${side.root} (${formatVersion(sourceVersion(side.root))}) ${JSON.stringify(side.env)}, ${target.ready.description}, ${n} users`,
  );
}

interface Round {
  readonly rps: number;
  readonly cpuUs?: number;
  readonly otherCpuPct?: number;
}
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

async function measure(target: RunningTarget, phase: PreparedPhase, durationSec: number): Promise<Round> {
  await drainTarget(target, 120);
  const machine = cpuSnapshot([process.pid, target.pid]);
  const own = cpuSnapshot([target.pid]);
  const stats = await runLoad({
    origin: target.baseUrl,
    headers: scimHeaders(target),
    next: () => {
      const request = phase.next();
      return { ...request, path: `${target.ready.scimBase}${request.path}` };
    },
    // A phase that continues from its answers (a cursor or startIndex walk) hears each one.
    ...(phase.onResponse ? { onResponse: phase.onResponse } : {}),
    connections,
    durationSec,
    timeoutSec: 120,
  });
  const shares = cpuShares(machine, cpuSnapshot([process.pid, target.pid]));
  await drainTarget(target, 120);
  const cpuUs = cpuPerRequestUs(own, cpuSnapshot([target.pid]), stats.ok + stats.errors);
  if (stats.errors > 0) throw new Error(`${phase.key}: ${stats.errors} errors ${JSON.stringify(stats.statusCodes)}`);
  return { rps: stats.rps, ...(cpuUs === undefined ? {} : { cpuUs }), ...(shares ? { otherCpuPct: shares.otherCpuPct } : {}) };
}

const report: Record<string, unknown>[] = [];
try {
  for (const key of phases) {
    const prepared = await Promise.all(
      targets.map((target, index) => prepareUserPhase(key, { target, n, userIds: userIds[index] as string[], seed: n + key.length })),
    );
    const measured: Round[][] = [[], []];
    // Warm-up of each side, unrecorded.
    for (const index of [0, 1]) await measure(targets[index] as RunningTarget, prepared[index] as PreparedPhase, 1);
    for (let round = 0; round < rounds; round++) {
      // A B, B A, A B, …: neither side always goes first.
      for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
        measured[index]?.push(await measure(targets[index] as RunningTarget, prepared[index] as PreparedPhase, seconds));
      }
    }
    const [a, b] = measured as [Round[], Round[]];
    const rpsA = median(a.map((r) => r.rps));
    const rpsB = median(b.map((r) => r.rps));
    const pairRatios = a.map((r, index) => (b[index]?.rps ?? 0) / r.rps);
    const cpuA = median(a.flatMap((r) => (r.cpuUs === undefined ? [] : [r.cpuUs])));
    const cpuB = median(b.flatMap((r) => (r.cpuUs === undefined ? [] : [r.cpuUs])));
    const other = median([...a, ...b].flatMap((r) => (r.otherCpuPct === undefined ? [] : [r.otherCpuPct])));
    report.push({ key, rounds: { a, b }, rpsA, rpsB, ratio: rpsB / rpsA, medianPairRatio: median(pairRatios), cpuA, cpuB });
    say(
      `${key}: A ${rpsA.toFixed(0)} req/s ${cpuA.toFixed(0)} µs/req | B ${rpsB.toFixed(0)} req/s ${cpuB.toFixed(0)} µs/req | B÷A throughput ${((rpsB / rpsA) * 100).toFixed(1)}% (median of pairs ${(median(pairRatios) * 100).toFixed(1)}%), CPU/req ${((cpuB / cpuA) * 100).toFixed(1)}% | other CPU ${other.toFixed(0)}%`,
    );
  }
} finally {
  for (const target of targets) await target.stop();
}
const file = join(
  repoRoot,
  "bench",
  "results",
  `${new Date()
    .toISOString()
    .replace(/:/g, "-")
    .replace(/\.\d+Z$/, "Z")}-alternating.json`,
);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(
  file,
  `${JSON.stringify({ store, n, rounds, seconds, connections, sides: sides.map((side) => ({ ...side, source: sourceVersion(side.root) })), phases: report }, null, 1)}\n`,
);
say(`wrote ${file}`);
