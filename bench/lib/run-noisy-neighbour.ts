/**
 * The noisy-neighbour scenario (issue 12) on one store: organization B sends cheap
 * `GET /Users/{id}` at a fixed concurrency for a fixed time, first alone, then while organization
 * A — on the same server, with many users — loops one expensive kind of request with one client,
 * once per kind, then alone again. Both organizations are the host's own (two tokens, two
 * `/scim/Organizations/{orgId}/v2` bases), so whatever the host shares between tenants is shared.
 */
import { loadavg } from "node:os";
import type { BenchConfig, TargetKind } from "./bench-config.js";
import { startClosedLoop, type LoopRequest } from "./closed-loop-client.js";
import { readMetrics, seedUsers, settle } from "./control-client.js";
import { cpuShares, cpuSnapshot } from "./cpu-accounting.js";
import { drainTarget } from "./drain-target.js";
import { largestAccepted, type Attempt } from "./largest-accepted.js";
import { A_LOADS, type ALoad, type NoisyFixture, type NoisyRun, type NoisyWindow } from "./noisy-neighbour-results.js";
import {
  addEmailsBody,
  manyEmailsUserBody,
  oneEmailUserBody,
  PATHOLOGY,
  pathologicalLists,
  replaceEmailTypesBody,
  resetEmailsBody,
  reverseChainBulkBody,
} from "./pathological-requests.js";
import { runLoad, type LoadStats } from "./run-load.js";
import { seededRandom } from "./seeded-random.js";
import { sourceVersion } from "./source-version.js";
import type { OrganizationAccess } from "./target-protocol.js";
import { startTarget, type RunningTarget } from "./target-process.js";

/** Users with one e-mail that take the `add` requests in turn; each is reset before its next turn. */
const ADD_POOL = 100;

export type NoisySettings = Pick<
  BenchConfig,
  | "noisyUsers"
  | "neighbourUsers"
  | "noisyDuration"
  | "noisyConnections"
  | "noisyLoads"
  | "noisyRequestTimeout"
  | "warmup"
  | "timeout"
  | "seedChunk"
  | "targetNodeArgs"
  | "postgresUrl"
>;

export interface NoisyContext {
  readonly repoRoot: string;
  readonly logDir: string;
  readonly targetCore?: number;
  readonly say: (line: string) => void;
}

/** A SCIM request with the given organization's token, outside any measurement. */
async function scimCall(
  target: RunningTarget,
  org: OrganizationAccess,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${target.baseUrl}${org.scimBase}${path}`, {
    method,
    headers: {
      accept: "application/scim+json",
      authorization: `Bearer ${org.token}`,
      ...(body === undefined ? {} : { "content-type": "application/scim+json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - started };
}

function idOf(text: string): string | undefined {
  try {
    const id = (JSON.parse(text) as Record<string, unknown>)["id"];
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

function detailOf(text: string): string | undefined {
  try {
    const detail = (JSON.parse(text) as Record<string, unknown>)["detail"];
    return typeof detail === "string" ? detail.slice(0, 300) : undefined;
  } catch {
    return text.slice(0, 300) || undefined;
  }
}

/** The users A's PATCH and add requests work on, built over HTTP so the server's bounds apply. */
interface Fixture {
  readonly record: NoisyFixture;
  /** The many-e-mails user and how many e-mails it holds. */
  readonly manyId?: string;
  readonly held: number;
  readonly addPool: readonly { readonly id: string; readonly email: string }[];
}

async function buildFixture(target: RunningTarget, a: OrganizationAccess, say: (line: string) => void): Promise<Fixture> {
  let manyId: string | undefined;
  let tries = 0;
  const tryOne = async (size: number): Promise<Attempt> => {
    tries += 1;
    const answer = await scimCall(target, a, "POST", "/Users", manyEmailsUserBody(`many-mails-${tries}@n.io`, size));
    const accepted = answer.status >= 200 && answer.status < 300;
    if (accepted) manyId = idOf(answer.text);
    const detail = accepted ? undefined : detailOf(answer.text);
    say(
      `  POST a user with ${size.toLocaleString("en-US")} e-mails: ${answer.status} in ${answer.ms.toFixed(0)} ms${detail ? ` — ${detail}` : ""}`,
    );
    return { size, status: answer.status, ms: answer.ms, ...(detail === undefined ? {} : { detail }) };
  };
  // The last accepted POST is the largest accepted one: the search only moves up after a success.
  const found = await largestAccepted(PATHOLOGY.manyEmails, tryOne);
  const addPool: { id: string; email: string }[] = [];
  for (let k = 0; k < ADD_POOL; k += 1) {
    const email = `add-pool-${k}@n.io`;
    const answer = await scimCall(target, a, "POST", "/Users", oneEmailUserBody(email));
    const id = idOf(answer.text);
    if (answer.status !== 201 || id === undefined)
      throw new Error(`creating add-pool user ${k}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
    addPool.push({ id, email });
  }
  return {
    record: {
      manyEmailsWanted: PATHOLOGY.manyEmails,
      manyEmailsBuilt: found.accepted,
      manyEmailsAttempts: found.attempts,
      addPool: addPool.length,
    },
    ...(manyId === undefined ? {} : { manyId }),
    held: found.accepted,
    addPool,
  };
}

/** A's requests for one load, as a generator for the closed loop. */
function requestsOf(load: ALoad, base: string, fixture: Fixture, users: number, runTag: string): () => LoopRequest {
  switch (load) {
    case "lists": {
      const lists = pathologicalLists(users);
      let k = 0;
      return () => {
        const list = lists[k % lists.length] as (typeof lists)[number];
        k += 1;
        return { shape: list.name, method: "GET", path: `${base}/Users?${list.query}` };
      };
    }
    case "patch": {
      const shape = `PATCH ${PATHOLOGY.patchOperations.toLocaleString("en-US")} × replace emails[value eq "…"].type (user with ${fixture.held.toLocaleString("en-US")} e-mails)`;
      if (fixture.manyId === undefined || fixture.held < 2) {
        return () => ({ shape: `${shape} — no such user could be created`, method: "GET", path: `${base}/Users?count=0` });
      }
      // Alternating types: every request changes every e-mail it names. Serialized once each.
      const bodies = ["home", "other"].map((type) => JSON.stringify(replaceEmailTypesBody(fixture.held, PATHOLOGY.patchOperations, type)));
      let k = 0;
      const path = `${base}/Users/${fixture.manyId}`;
      return () => {
        const body = bodies[k % 2] as string;
        k += 1;
        return { shape, method: "PATCH", path, body };
      };
    }
    case "add": {
      const shape = `PATCH add emails, ${PATHOLOGY.addValues.toLocaleString("en-US")} values (user with 1 e-mail)`;
      let k = 0;
      let resetDue = false;
      return () => {
        const user = fixture.addPool[k % fixture.addPool.length] as Fixture["addPool"][number];
        const path = `${base}/Users/${user.id}`;
        // Back to one e-mail before a user's next turn, so each add starts from the same state.
        if (k >= fixture.addPool.length && !resetDue) {
          resetDue = true;
          return {
            shape: "reset the user to 1 e-mail (helper)",
            helper: true,
            method: "PATCH",
            path,
            body: JSON.stringify(resetEmailsBody(user.email)),
          };
        }
        resetDue = false;
        k += 1;
        return { shape, method: "PATCH", path, body: JSON.stringify(addEmailsBody(PATHOLOGY.addValues, k)) };
      };
    }
    case "bulk": {
      const shape = `POST /Bulk, ${PATHOLOGY.bulkOperations.toLocaleString("en-US")} POST /Users chained by bulkId in reverse`;
      let k = 0;
      return () => {
        k += 1;
        return {
          shape,
          method: "POST",
          path: `${base}/Bulk`,
          body: JSON.stringify(reverseChainBulkBody(PATHOLOGY.bulkOperations, `${runTag}-${k}`)),
        };
      };
    }
  }
}

const fmtB = (stats: LoadStats): string =>
  `${Math.round(stats.rps)} req/s  p50 ${stats.p50Ms.toFixed(2)} ms  p99 ${stats.p99Ms.toFixed(2)} ms  max ${stats.maxMs.toFixed(1)} ms${stats.errors > 0 ? `  errors ${stats.errors} ${JSON.stringify(stats.statusCodes)}` : ""}`;

/** Runs the scenario on one store. */
export async function runNoisyNeighbour(
  kind: Exclude<TargetKind, "scimmy">,
  settings: NoisySettings,
  context: NoisyContext,
): Promise<NoisyRun> {
  const { say } = context;
  const label = `noisy ${kind}@${settings.noisyUsers}`;
  const version = sourceVersion(context.repoRoot);
  const windows: NoisyWindow[] = [];
  const run: { -readonly [K in keyof NoisyRun]: NoisyRun[K] } = {
    target: kind,
    aUsers: settings.noisyUsers,
    bUsers: settings.neighbourUsers,
    connections: settings.noisyConnections,
    durationSec: settings.noisyDuration,
    description: "",
    windows,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    ...(version ? { source: version } : {}),
  };
  const env: Record<string, string> = { PORT: "0", STORE: kind };
  if (kind === "postgres" && settings.postgresUrl) env["SCIMKIT_BENCH_POSTGRES_URL"] = settings.postgresUrl;
  let target: RunningTarget | undefined;
  try {
    target = await startTarget({
      entry: "bench/targets/scimkit-target.ts",
      env,
      ...(context.targetCore === undefined ? {} : { pinToCore: context.targetCore }),
      nodeArgs: ["--expose-gc", ...settings.targetNodeArgs],
      logDir: context.logDir,
      logName: `noisy-${kind}-${settings.noisyUsers}`,
      cwd: context.repoRoot,
    });
    const running = target;
    run.logFile = running.logFile;
    run.description = running.ready.description ?? "";
    const b = running.ready.neighbour;
    if (!b) throw new Error("the target serves one organization only (no `neighbour` in its ready line)");
    const a: OrganizationAccess = { scimBase: running.ready.scimBase, token: running.ready.token };

    say(`${label}: seeding ${settings.noisyUsers.toLocaleString("en-US")} users in organization A, ${settings.neighbourUsers} in B`);
    const seedStart = performance.now();
    await seedUsers(running, 0, settings.noisyUsers, settings.seedChunk);
    const bIds = await seedUsers(running, 0, settings.neighbourUsers, settings.seedChunk, undefined, "neighbour");
    run.seedingMs = performance.now() - seedStart;
    say(`${label}: seeded in ${(run.seedingMs / 1000).toFixed(1)} s; building A's pathological users over HTTP`);
    const fixture = await buildFixture(running, a, say);
    run.fixture = fixture.record;
    await settle(running);

    const random = seededRandom(settings.neighbourUsers + settings.noisyUsers);
    const bSpec = (durationSec: number) => ({
      origin: running.baseUrl,
      headers: { accept: "application/scim+json", authorization: `Bearer ${b.token}` },
      next: () => ({ method: "GET" as const, path: `${b.scimBase}/Users/${bIds[Math.floor(random() * bIds.length)]}` }),
      connections: settings.noisyConnections,
      durationSec,
      timeoutSec: settings.timeout,
    });
    if (settings.warmup > 0) await runLoad(bSpec(settings.warmup));

    const measure = async (load: NoisyWindow["load"]): Promise<void> => {
      await drainTarget(running, settings.timeout); // resets the event-loop histogram too
      const cpuBefore = cpuSnapshot([process.pid, running.pid]);
      const aLoad = (A_LOADS as readonly string[]).includes(load) ? (load as ALoad) : undefined;
      const loop = aLoad
        ? startClosedLoop({
            origin: running.baseUrl,
            token: a.token,
            next: requestsOf(aLoad, a.scimBase, fixture, settings.noisyUsers, `bulk-${Date.now().toString(36)}`),
            timeoutMs: settings.noisyRequestTimeout * 1000,
          })
        : undefined;
      // B starts once A's first request is on its way, so the whole window is "under A".
      if (loop) await loop.started;
      const stats = await runLoad(bSpec(settings.noisyDuration));
      // A sends nothing more once B's window is over; its request in flight may still finish.
      const aStopped = loop?.stop();
      const cpu = cpuShares(cpuBefore, cpuSnapshot([process.pid, running.pid]));
      // A target stuck in A's request answers only when that is done: wait as long as A would.
      const during = await readMetrics(running, false, (settings.timeout + settings.noisyRequestTimeout) * 1000);
      const aTimings = await aStopped;
      const window: NoisyWindow = {
        load,
        b: stats,
        ...(aTimings ? { a: aTimings } : {}),
        maxEventLoopDelayMs: during.maxEventLoopDelayMs,
        bWindowEventLoopDelayMs: during.maxEventLoopDelayMs,
        ...(cpu ? { otherCpuPct: cpu.otherCpuPct, stealPct: cpu.stealPct } : {}),
      };
      // Recorded before waiting for the target: if an abandoned A request keeps it busy past the
      // timeout, the run ends with this window's figures kept and the reason as its error.
      windows.push(window);
      const after = await drainTarget(running, settings.timeout);
      windows[windows.length - 1] = { ...window, maxEventLoopDelayMs: Math.max(during.maxEventLoopDelayMs, after.maxEventLoopDelayMs) };
      say(
        `${label} ${load}: B ${fmtB(stats)}  max-eld ${windows[windows.length - 1]?.maxEventLoopDelayMs?.toFixed(1)} ms${cpu ? `  other-cpu ${cpu.otherCpuPct.toFixed(0)}%` : ""}`,
      );
      for (const shape of aTimings ?? []) {
        say(
          `    A ${shape.shape}: ${shape.count}× p50 ${shape.p50Ms.toFixed(0)} ms max ${shape.maxMs.toFixed(0)} ms ${JSON.stringify(shape.statusCodes)}${shape.refusal?.detail ? ` — ${shape.refusal.detail.slice(0, 160)}` : ""}${shape.operationStatuses ? ` ops ${JSON.stringify(shape.operationStatuses)}` : ""}`,
        );
      }
    };
    await measure("alone");
    for (const load of A_LOADS.filter((name) => settings.noisyLoads.includes(name))) {
      await measure(load);
      await measure("alone");
    }
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
    say(`${label}: FAILED — ${run.error}${target ? ` (log: ${target.logFile})` : ""}`);
  } finally {
    if (target?.exited() && !run.error) run.error = `target exited early (log: ${target.logFile})`;
    await target?.stop();
  }
  return run;
}
