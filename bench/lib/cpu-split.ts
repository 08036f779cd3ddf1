/**
 * Where the machine's CPU went during a phase (Linux `/proc`), as shares of all cores: the host
 * (its primary and every worker), the runner (the load client), PostgreSQL's server processes,
 * everything else, and hypervisor steal. With the host, the database and the load client on the
 * same cores, this is what says why N workers scale as they do.
 */
import { readdirSync, readFileSync } from "node:fs";

interface ProcessTicks {
  readonly pid: number;
  readonly ppid: number;
  readonly command: string;
  readonly ticks: number;
}

export interface CpuSplitSnapshot {
  readonly total: number;
  readonly busy: number;
  readonly steal: number;
  /** Ticks per process id, with what identifies it. */
  readonly processes: ReadonlyMap<number, ProcessTicks>;
}

export interface CpuSplit {
  readonly hostPct: number;
  readonly runnerPct: number;
  readonly postgresPct: number;
  readonly otherPct: number;
  readonly stealPct: number;
  /** Share of all cores idle. */
  readonly idlePct: number;
}

/** Parses one `/proc/<pid>/stat` line: the command sits in parentheses and may hold spaces. */
export function parseProcStat(line: string): ProcessTicks | undefined {
  const open = line.indexOf("(");
  const close = line.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const fields = line.slice(close + 2).split(" ");
  // After the command: state(0) ppid(1) … utime(11) stime(12), fields 3, 4, 14 and 15 of proc(5).
  const ticks = Number(fields[11]) + Number(fields[12]);
  const ppid = Number(fields[1]);
  if (!Number.isFinite(ticks) || !Number.isFinite(ppid)) return undefined;
  return { pid: Number(line.slice(0, open).trim()), ppid, command: line.slice(open + 1, close), ticks };
}

/** Every process's ticks, and the machine's; undefined where `/proc` is absent. */
export function cpuSplitSnapshot(): CpuSplitSnapshot | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
    const processes = new Map<number, ProcessTicks>();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const parsed = parseProcStat(readFileSync(`/proc/${entry}/stat`, "utf8"));
        if (parsed) processes.set(parsed.pid, parsed);
      } catch {
        // The process ended between the listing and the read.
      }
    }
    return { total: busy + (idle ?? 0) + (iowait ?? 0) + (steal ?? 0), busy, steal: steal ?? 0, processes };
  } catch {
    return undefined;
  }
}

/** `root` and its descendants among `processes`. */
export function processTree(processes: ReadonlyMap<number, Pick<ProcessTicks, "pid" | "ppid">>, root: number): Set<number> {
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of processes.values()) {
      if (!tree.has(entry.pid) && tree.has(entry.ppid)) {
        tree.add(entry.pid);
        grew = true;
      }
    }
  }
  return tree;
}

/**
 * The split between two snapshots. The host's tree is read from `after` (workers started during
 * the phase count from their start); a process missing from `before` counts all its ticks.
 */
export function cpuSplit(
  before: CpuSplitSnapshot | undefined,
  after: CpuSplitSnapshot | undefined,
  hostPid: number,
  runnerPid: number,
): CpuSplit | undefined {
  if (!before || !after || after.total <= before.total) return undefined;
  const total = after.total - before.total;
  const host = processTree(after.processes, hostPid);
  let hostTicks = 0;
  let runnerTicks = 0;
  let postgresTicks = 0;
  for (const entry of after.processes.values()) {
    const ticks = Math.max(0, entry.ticks - (before.processes.get(entry.pid)?.ticks ?? 0));
    if (host.has(entry.pid)) hostTicks += ticks;
    else if (entry.pid === runnerPid) runnerTicks += ticks;
    else if (entry.command === "postgres") postgresTicks += ticks;
  }
  const busy = after.busy - before.busy;
  const stolen = after.steal - before.steal;
  const pct = (ticks: number): number => (100 * ticks) / total;
  return {
    hostPct: pct(hostTicks),
    runnerPct: pct(runnerTicks),
    postgresPct: pct(postgresTicks),
    // Everything else busy, processes that ended during the phase included.
    otherPct: pct(Math.max(0, busy - hostTicks - runnerTicks - postgresTicks)),
    stealPct: pct(stolen),
    idlePct: pct(Math.max(0, total - busy - stolen)),
  };
}
