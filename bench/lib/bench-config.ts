/**
 * The bench's settings, from command-line flags (`--name=value` or `--name value`) over
 * environment variables (`BENCH_NAME`) over defaults. `--quick` is a smoke run: N=1,000 only and
 * 1 s phases. `--only=noisy` runs only the noisy-neighbour scenario (`--only=phases` only the rest).
 */

/**
 * A kind of target the runner can start. `table` is `tableStore` on SQLite over an application's
 * own tables (issue 16); it runs only when named in `--targets`.
 */
export type TargetKind = "memory" | "sqlite" | "postgres" | "scimmy" | "table";

/**
 * The provisioning log a scimkit target runs with (issue 18): none, `memoryRequestLog`, or the SQL
 * sink on the target's own database. Several kinds measure each target and size once per kind, in
 * the same run, for the log's cost (`request-log-cost.ts`).
 */
export type RequestLogKind = "off" | "memory" | "sql";

/** The parts of a run: the per-phase measurements and the noisy-neighbour scenario (issue 12). */
export type BenchPart = "phases" | "noisy";

export interface BenchConfig {
  readonly quick: boolean;
  readonly targets: readonly TargetKind[];
  /** N for memory, SQLite and the peer. */
  readonly sizes: readonly number[];
  /** N for PostgreSQL (the default adds 1,000,000). */
  readonly postgresSizes: readonly number[];
  /** N for the scimmy peer. */
  readonly peerSizes: readonly number[];
  /** Members of the groups measured, each ≤ N (0 = an empty group). */
  readonly groupSizes: readonly number[];
  /** Extra users seeded for the member-add phases: `pool / 100` add requests per group. */
  readonly memberPool: number;
  /** Seconds per measured phase, and of warm-up before it. */
  readonly duration: number;
  readonly warmup: number;
  readonly connections: number;
  /** Per-request timeout, seconds. */
  readonly timeout: number;
  /**
   * A phase that completes fewer requests than connections is timed again with one connection
   * and at most 3 requests, for at most this many seconds.
   */
  readonly serialTimeout: number;
  /** Users per `seed-users` call. */
  readonly seedChunk: number;
  readonly postgresUrl: string | undefined;
  /** Pin targets to core 1 and the runner to core 0 when `taskset` exists. */
  readonly pin: boolean;
  /** Extra node flags for target processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
  readonly targetNodeArgs: readonly string[];
  /** Only phases whose key contains one of these (empty: all). */
  readonly phaseFilter: readonly string[];
  /** Regenerate docs from this results file instead of measuring. */
  readonly reportOnly: string | undefined;
  /** Do not overwrite docs/benchmarks.md (results JSON is still written). */
  readonly noDocs: boolean;
  /** Which parts run (default both). */
  readonly only: readonly BenchPart[];
  /** The provisioning logs each scimkit target is measured with, in this order (default `off` only). */
  readonly requestLogs: readonly RequestLogKind[];
  /** Noisy neighbour: users of organization A (seeded), and of organization B. */
  readonly noisyUsers: number;
  readonly neighbourUsers: number;
  /** Noisy neighbour: seconds of each window, and B's concurrent connections. */
  readonly noisyDuration: number;
  readonly noisyConnections: number;
  /** Noisy neighbour: A's loads to run, a subset of `lists,patch,add,bulk`. */
  readonly noisyLoads: readonly string[];
  /** Noisy neighbour: an A request still unanswered after this many seconds is abandoned. */
  readonly noisyRequestTimeout: number;
  /** With `reportOnly`: take the noisy-neighbour results from this file instead. */
  readonly noisyResults: string | undefined;
}

/** `--name=value`, `--name value` (the next argument when it is not a flag), or `--name` alone (`"true"`). */
export function flags(argv: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  argv.forEach((arg, index) => {
    if (!arg.startsWith("--")) return;
    const [name, ...rest] = arg.slice(2).split("=");
    const following = argv[index + 1];
    const value = rest.length > 0 ? rest.join("=") : following !== undefined && !following.startsWith("--") ? following : "true";
    map.set(name ?? "", value);
  });
  return map;
}

function numberList(text: string): number[] {
  return text
    .split(",")
    .map((part) => part.trim().replace(/_/g, ""))
    .filter((part) => part !== "")
    .map((part) => {
      const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(part);
      if (!match) throw new Error(`not a size: ${part}`);
      const unit = (match[2] ?? "").toLowerCase();
      return Math.round(Number(match[1]) * (unit === "k" ? 1_000 : unit === "m" ? 1_000_000 : 1));
    });
}

/** Reads the settings. */
export function readConfig(argv: readonly string[], env: NodeJS.ProcessEnv): BenchConfig {
  const given = flags(argv);
  const get = (name: string): string | undefined => given.get(name) ?? env[`BENCH_${name.toUpperCase().replace(/-/g, "_")}`];
  const quick = get("quick") === "true" || get("quick") === "1";
  const postgresUrl = get("postgres-url") ?? env["SCIMKIT_BENCH_POSTGRES_URL"] ?? env["DATABASE_URL"];
  const usablePostgres = postgresUrl && /^postgres(ql)?:\/\//.test(postgresUrl) ? postgresUrl : undefined;
  const defaultTargets: TargetKind[] = ["memory", "sqlite", ...(usablePostgres ? (["postgres"] as const) : []), "scimmy"];
  const targets = (get("targets") ?? get("stores"))?.split(",").map((t) => t.trim()) ?? defaultTargets;
  for (const target of targets) {
    if (!["memory", "sqlite", "postgres", "scimmy", "table"].includes(target)) throw new Error(`unknown target ${target}`);
  }
  if (targets.includes("postgres") && !usablePostgres) throw new Error("postgres needs SCIMKIT_BENCH_POSTGRES_URL (postgres://…)");
  const sizes = numberList(get("sizes") ?? (quick ? "1000" : "1000,10000,100000"));
  const noMillion = get("no-pg-1m") === "true" || get("no-pg-1m") === "1";
  const postgresSizes = numberList(get("pg-sizes") ?? (quick || noMillion ? sizes.join(",") : [...sizes, 1_000_000].join(",")));
  const peerSizes = numberList(get("peer-sizes") ?? sizes.join(","));
  const groupSizes = numberList(get("group-sizes") ?? (quick ? "0,1000" : "0,10000,100000"));
  const pin = get("no-taskset") !== "true" && get("no-taskset") !== "1";
  const only = (get("only") ?? "phases,noisy")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  for (const part of only) {
    if (part !== "phases" && part !== "noisy") throw new Error(`--only takes phases and/or noisy, not ${part}`);
  }
  const requestLogs = (get("request-log") ?? "off")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  for (const kind of requestLogs) {
    if (!["off", "memory", "sql"].includes(kind)) throw new Error(`--request-log takes off, memory and/or sql, not ${kind}`);
  }
  if (requestLogs.length === 0) throw new Error("--request-log needs at least one of off, memory, sql");
  const noisyLoads = (get("noisy-loads") ?? "lists,patch,add,bulk").split(",").map((part) => part.trim());
  for (const load of noisyLoads) {
    if (!["lists", "patch", "add", "bulk"].includes(load)) throw new Error(`--noisy-loads takes lists, patch, add, bulk; not ${load}`);
  }
  return {
    quick,
    targets: targets as TargetKind[],
    sizes,
    postgresSizes,
    peerSizes,
    groupSizes,
    memberPool: Number(get("pool") ?? (quick ? 2_000 : 50_000)),
    duration: Number(get("duration") ?? (quick ? 1 : 3)),
    warmup: Number(get("warmup") ?? (quick ? 0.5 : 1)),
    connections: Number(get("connections") ?? 10),
    timeout: Number(get("timeout") ?? 120),
    serialTimeout: Number(get("serial-timeout") ?? 120),
    seedChunk: Math.min(10_000, Number(get("seed-chunk") ?? 10_000)),
    postgresUrl: usablePostgres,
    pin,
    targetNodeArgs: (get("target-node-args") ?? "").split(" ").filter((arg) => arg !== ""),
    phaseFilter: (get("phases") ?? "").split(",").filter((part) => part !== ""),
    reportOnly: get("report-only"),
    noDocs: get("no-docs") === "true" || get("no-docs") === "1",
    only: only as BenchPart[],
    requestLogs: requestLogs as RequestLogKind[],
    noisyUsers: numberList(get("noisy-users") ?? get("users") ?? (quick ? "2000" : "50000"))[0] ?? 50_000,
    neighbourUsers: Number(get("neighbour-users") ?? 100),
    noisyDuration: Number(get("noisy-duration") ?? (quick ? 2 : 10)),
    noisyConnections: Number(get("noisy-connections") ?? 10),
    noisyLoads,
    noisyRequestTimeout: Number(get("noisy-request-timeout") ?? 60),
    noisyResults: get("noisy-results"),
  };
}
