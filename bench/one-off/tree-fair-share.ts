/**
 * One-off measurement of issue 27's points 13 and 14 (not a test, not part of `npm run bench`):
 * on the host over a SQLite file, organization `victim` sends cheap `GET /Users/{id}` on
 * `CONNECTIONS` connections,
 * - alone, then while eight organizations of one tree each loop expensive lists with one client
 *   (the three lists of the noisy-neighbour scenario: a substring filter, a filter no index
 *   answers, a sort with a deep page), then alone again — point 13;
 * - then `PATCH_RUNS` times while organization `writer` loops the largest PATCH the host's bounds
 *   allow (10,000 `replace emails[value eq "…"].type` operations on a user holding 1,000 e-mails,
 *   under 1 MiB) — point 14.
 * It prints the victim's throughput under load as a share of alone, its p99 as a multiple of
 * alone and its slowest request, with the load average.
 *
 *   npx tsx bench/one-off/tree-fair-share.ts [repo root of the code to measure, default this one]
 *
 * Windows alone and under load alternate (TREE_PAIRS pairs for the tree, one alone window before
 * each PATCH run), so load from outside falls on both alike; the summary lines give medians.
 *
 * Environment: USERS (default 50,000, spread over the tree's eight organizations),
 * SECONDS_PER_WINDOW (default 15), TREE_PAIRS (default 3), CONNECTIONS (default 8), PATCH_RUNS
 * (default 8), PATCH_SECONDS (default 8), TREE=off (no fair-share groups), PHASES=tree,patch.
 */
import { spawn } from "node:child_process";
import { Agent, request as httpRequest } from "node:http";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { startClosedLoop, type LoopRequest } from "../lib/closed-loop-client.js";
import { pathologicalLists, replaceEmailTypesBody } from "../lib/pathological-requests.js";
import { sampleBuffer, summarizeLatencies, type LatencySummary } from "../lib/latency-summary.js";

/** The victim's figures for one window: 2xx answers per second and their latencies. */
interface LoadStats extends LatencySummary {
  readonly rps: number;
  readonly errors: number;
  readonly statusCodes: Record<string, number>;
}

const root = resolve(process.argv[2] ?? ".");
const SECONDS = Number(process.env["SECONDS_PER_WINDOW"] ?? process.env["SECONDS"] ?? 15);
const CONNECTIONS = Number(process.env["CONNECTIONS"] ?? 8);
const PATCH_RUNS = Number(process.env["PATCH_RUNS"] ?? 8);
const PATCH_SECONDS = Number(process.env["PATCH_SECONDS"] ?? 8);
const USERS = Number(process.env["USERS"] ?? 50_000);
const PHASES = (process.env["PHASES"] ?? "tree,patch").split(",");
const TREE_PAIRS = Number(process.env["TREE_PAIRS"] ?? 3);

interface Ready {
  readonly port: number;
  readonly tokens: Record<string, string>;
  readonly divisions: readonly string[];
  readonly victimIds: readonly string[];
  readonly writerId: string;
  readonly writerEmails: number;
  readonly seedMs: number;
  readonly tree: boolean;
}

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
const say = (line: string): void => void process.stdout.write(`${line}\n`);

say(`code: ${root}; load average ${load()}`);
const child = spawn("node", ["--conditions=scimkit-source", "--import", "tsx", "bench/one-off/tree-fair-share-target.ts"], {
  cwd: root,
  env: { ...process.env, USERS: String(USERS) },
  stdio: ["ignore", "pipe", "inherit"],
});
const ready = await new Promise<Ready>((resolveReady, reject) => {
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    if (!line.startsWith('{"treeReady"')) return;
    resolveReady((JSON.parse(line) as { treeReady: Ready }).treeReady);
  });
  child.once("exit", (code) => reject(new Error(`target exited with ${String(code)} before it was ready`)));
});
say(
  `seeded ${USERS} users over ${ready.divisions.length} organizations of one tree in ${(ready.seedMs / 1000).toFixed(1)} s; tree groups ${ready.tree ? "on" : "off"}`,
);
const origin = `http://127.0.0.1:${ready.port}`;
const scim = (orgId: string): string => `/scim/Organizations/${orgId}/v2`;

let pick = 0;
const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });

/** One GET on the kept-alive agent; its status and milliseconds to the last byte. */
function get(path: string, token: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolveGet) => {
    const request = httpRequest(
      { host: "127.0.0.1", port: ready.port, path, agent, headers: { accept: "application/scim+json", authorization: `Bearer ${token}` } },
      (response) => {
        response.resume();
        response.on("end", () => resolveGet({ status: response.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    request.on("error", () => resolveGet({ status: 0, ms: performance.now() - started }));
    request.end();
  });
}

/** `victim`'s closed loop: `CONNECTIONS` clients, each sending its next lookup on the last answer. */
async function victim(seconds: number): Promise<LoadStats> {
  const samples = sampleBuffer();
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  const token = ready.tokens["victim"] as string;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        pick = (pick + 7919) % ready.victimIds.length;
        const { status, ms } = await get(`${scim("victim")}/Users/${ready.victimIds[pick]}`, token);
        statusCodes[status] = (statusCodes[status] ?? 0) + 1;
        if (status >= 200 && status < 300) samples.push(ms);
        else errors += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const summary = summarizeLatencies(samples.values());
  return { ...summary, rps: summary.count / elapsed, errors, statusCodes };
}

const show = (label: string, stats: LoadStats, alone?: LoadStats): string => {
  const ratio = alone
    ? `  ${((100 * stats.rps) / alone.rps).toFixed(0)}% of alone, p99 ${(stats.p99Ms / alone.p99Ms).toFixed(1)}× alone`
    : "";
  const errors = stats.errors > 0 ? `  errors ${stats.errors} ${JSON.stringify(stats.statusCodes)}` : "";
  return `${label}: ${Math.round(stats.rps)} req/s p50 ${stats.p50Ms.toFixed(1)} ms p99 ${stats.p99Ms.toFixed(1)} ms max ${stats.maxMs.toFixed(0)} ms${ratio}${errors}  (load ${load()})`;
};

/** Runs the victim for `seconds` while `loops` run, and what the loops saw. */
async function under(loops: readonly (() => LoopRequest)[], tokens: readonly string[], seconds: number): Promise<[LoadStats, string]> {
  const running = loops.map((next, index) => startClosedLoop({ origin, token: tokens[index] as string, next, timeoutMs: 120_000 }));
  await Promise.all(running.map((loop) => loop.started));
  const stats = await victim(seconds);
  const timings = await Promise.all(running.map((loop) => loop.stop()));
  const statuses: Record<string, number> = {};
  let count = 0;
  for (const shape of timings.flat()) {
    count += shape.count;
    for (const [status, n] of Object.entries(shape.statusCodes)) statuses[status] = (statuses[status] ?? 0) + n;
  }
  return [stats, `${count} requests ${JSON.stringify(statuses)}`];
}

try {
  await victim(3);
  const median = (values: readonly number[]): number => {
    const sorted = [...values].sort((x, y) => x - y);
    return sorted[Math.floor(sorted.length / 2)] as number;
  };
  if (PHASES.includes("tree")) {
    const lists = pathologicalLists(USERS / ready.divisions.length);
    const loops = ready.divisions.map((orgId, index) => {
      let k = index;
      return (): LoopRequest => {
        const list = lists[k % lists.length] as (typeof lists)[number];
        k += 1;
        return { shape: list.name, method: "GET", path: `${scim(orgId)}/Users?${list.query}` };
      };
    });
    // Alone and under, alternated, so a neighbour's load on the machine falls on both alike.
    const throughput: number[] = [];
    const p99: number[] = [];
    const maxima: number[] = [];
    for (let pair = 1; pair <= TREE_PAIRS; pair++) {
      const alone = await victim(SECONDS);
      say(show(`pair ${pair}: victim alone`, alone));
      const [tree, seen] = await under(
        loops,
        ready.divisions.map((orgId) => ready.tokens[orgId] as string),
        SECONDS,
      );
      say(show(`pair ${pair}: victim under 8 organizations of one tree looping expensive lists`, tree, alone));
      say(`  the tree's lists: ${seen}`);
      throughput.push(tree.rps / alone.rps);
      p99.push(tree.p99Ms / alone.p99Ms);
      maxima.push(tree.maxMs);
    }
    say(
      `tree: median throughput ${(100 * median(throughput)).toFixed(0)}% of alone (pairs: ${throughput.map((r) => `${(100 * r).toFixed(0)}%`).join(", ")}), ` +
        `median p99 ${median(p99).toFixed(1)}× alone, slowest ${Math.max(...maxima).toFixed(0)} ms (per pair: ${maxima.map((ms) => ms.toFixed(0)).join(", ")})`,
    );
  }
  if (PHASES.includes("patch")) {
    const bodies = ["home", "other"].map((type) => JSON.stringify(replaceEmailTypesBody(ready.writerEmails, 10_000, type)));
    say(
      `largest PATCH: 10,000 operations, ${(Buffer.byteLength(bodies[0] as string) / 1024).toFixed(0)} KiB, on a user with ${ready.writerEmails} e-mails`,
    );
    const maxima: number[] = [];
    const aloneMaxima: number[] = [];
    for (let run = 1; run <= PATCH_RUNS; run++) {
      const alone = await victim(PATCH_SECONDS);
      aloneMaxima.push(alone.maxMs);
      let k = 0;
      const next = (): LoopRequest => {
        k += 1;
        return {
          shape: "largest PATCH",
          method: "PATCH",
          path: `${scim("writer")}/Users/${ready.writerId}`,
          body: bodies[k % 2] as string,
        };
      };
      const [stats, seen] = await under([next], [ready.tokens["writer"] as string], PATCH_SECONDS);
      maxima.push(stats.maxMs);
      say(
        `${show(`run ${run}: victim under the largest PATCH`, stats, alone)}; alone just before: max ${alone.maxMs.toFixed(0)} ms — writer: ${seen}`,
      );
    }
    say(
      `patch: slowest victim read per run (ms): ${maxima.map((ms) => ms.toFixed(0)).join(", ")}; over 250 ms in ${maxima.filter((ms) => ms >= 250).length} of ${maxima.length}; ` +
        `alone just before each: ${aloneMaxima.map((ms) => ms.toFixed(0)).join(", ")} (over 250 ms in ${aloneMaxima.filter((ms) => ms >= 250).length})`,
    );
  }
} finally {
  child.kill("SIGTERM");
}
