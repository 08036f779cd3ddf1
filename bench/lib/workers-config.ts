/**
 * The settings of `npm run bench:workers` (`bench/workers-scaling.ts`), from flags (`--name=value`
 * or `--name value`) over environment variables (`BENCH_NAME`) over defaults.
 */

export interface WorkersConfig {
  /** The `SCIMKIT_WORKERS` values measured, in the order of one round. */
  readonly workers: readonly number[];
  /** Rounds over `workers`: 2 alternates 1, …, N, 1, …, N, so drift on a shared machine shows. */
  readonly rounds: number;
  /** Users seeded before the phases. */
  readonly users: number;
  /** Seconds of warm-up, then of measurement, per phase. */
  readonly warmup: number;
  readonly duration: number;
  /** Keep-alive connections of the load client. */
  readonly connections: number;
  /** Per-request timeout, seconds. */
  readonly timeout: number;
  /** Also measure bare Express run as N cluster processes (the ceiling clustering can reach here). */
  readonly bareCluster: boolean;
  /** The server database; the runner makes a fresh schema in it per host start and drops it after. */
  readonly postgresUrl: string | undefined;
  /** Do not write the section into docs/benchmarks.md. */
  readonly noDocs: boolean;
}

/**
 * 1 to the cores, and one more: the host's default (`SCIMKIT_WORKERS=auto`) is the cores, and
 * cores + 1 shows whether oversubscribing them gains or costs — worth 2 phases of one host start.
 */
export function defaultWorkerCounts(cores: number): number[] {
  const top = Math.max(1, cores);
  return [...Array.from({ length: top }, (_, index) => index + 1), top + 1];
}

const positive = (name: string, text: string, whole: boolean): number => {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value))) {
    throw new Error(`--${name}=${JSON.stringify(text)}: expected a ${whole ? "whole number of at least 1" : "positive number"}`);
  }
  return value;
};

/** Reads the settings; throws with the flag and what it takes on a bad value. */
export function readWorkersConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cores: number,
): WorkersConfig {
  const flags = new Map<string, string>();
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unexpected argument ${JSON.stringify(arg)}: flags are --name=value`);
    const name = match[1] as string;
    if (match[2] !== undefined) flags.set(name, match[2]);
    else if (argv[index + 1] !== undefined && !(argv[index + 1] as string).startsWith("--")) {
      flags.set(name, argv[index + 1] as string);
      index += 1;
    } else flags.set(name, "true");
  }
  const known = new Set(["workers", "rounds", "users", "warmup", "duration", "connections", "timeout", "bare-cluster", "no-docs", "quick"]);
  for (const name of flags.keys()) {
    if (!known.has(name)) throw new Error(`unknown flag --${name}; known: ${[...known].map((flag) => `--${flag}`).join(", ")}`);
  }
  const get = (name: string): string | undefined => flags.get(name) ?? env[`BENCH_${name.toUpperCase().replace(/-/g, "_")}`];
  const quick = get("quick") === "true" || get("quick") === "1";
  const number = (name: string, fallback: number, whole = true): number => {
    const text = get(name);
    return text === undefined ? fallback : positive(name, text, whole);
  };
  const workersText = get("workers");
  const workers =
    workersText === undefined ? defaultWorkerCounts(cores) : workersText.split(",").map((part) => positive("workers", part.trim(), true));
  const flag = (name: string, fallback: boolean): boolean => {
    const text = get(name);
    return text === undefined ? fallback : text !== "false" && text !== "0";
  };
  return {
    workers,
    rounds: number("rounds", quick ? 1 : 2),
    users: number("users", quick ? 200 : 2000),
    warmup: number("warmup", quick ? 1 : 3, false),
    duration: number("duration", quick ? 2 : 10, false),
    connections: number("connections", 32),
    timeout: number("timeout", 30, false),
    bareCluster: flag("bare-cluster", true),
    postgresUrl: env["SCIMKIT_BENCH_POSTGRES_URL"] ?? env["DATABASE_URL"],
    noDocs: flag("no-docs", false),
  };
}
