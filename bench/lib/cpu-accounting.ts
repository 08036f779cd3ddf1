/**
 * How busy the rest of the machine was during a phase (Linux `/proc`): CPU time spent by
 * processes other than the runner and the target, and hypervisor steal, as a share of all cores.
 * On a shared machine this says how far to trust a figure. PostgreSQL's own processes count as
 * "other" here.
 */
import { readFileSync } from "node:fs";

export interface CpuSnapshot {
  readonly busy: number;
  readonly steal: number;
  readonly total: number;
  readonly own: number;
}

function processTicks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    // utime and stime are fields 14 and 15 of stat, i.e. 11 and 12 after the command name.
    return Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  } catch {
    return 0;
  }
}

/** Machine-wide and own CPU ticks now; undefined where `/proc` is absent. */
export function cpuSnapshot(pids: readonly number[]): CpuSnapshot | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
    const total = busy + (idle ?? 0) + (iowait ?? 0) + (steal ?? 0);
    return { busy, steal: steal ?? 0, total, own: pids.reduce((sum, pid) => sum + processTicks(pid), 0) };
  } catch {
    return undefined;
  }
}

// Linux's USER_HZ, the unit of /proc/<pid>/stat times, is 100 on every architecture Node runs on.
const MICROSECONDS_PER_TICK = 10_000;

/**
 * CPU time, in µs, one process spent per request between two `cpuSnapshot([pid])` readings: a
 * figure a busy machine disturbs far less than throughput (the process waits for a core, it does
 * not spend more on each request). Undefined without `/proc` or requests.
 */
export function cpuPerRequestUs(before: CpuSnapshot | undefined, after: CpuSnapshot | undefined, requests: number): number | undefined {
  if (!before || !after || requests <= 0) return undefined;
  return ((after.own - before.own) * MICROSECONDS_PER_TICK) / requests;
}

/** Shares of all cores between two snapshots, in percent. */
export function cpuShares(
  before: CpuSnapshot | undefined,
  after: CpuSnapshot | undefined,
): { otherCpuPct: number; stealPct: number } | undefined {
  if (!before || !after || after.total <= before.total) return undefined;
  const total = after.total - before.total;
  const other = Math.max(0, after.busy - before.busy - (after.own - before.own));
  return { otherCpuPct: (100 * other) / total, stealPct: (100 * (after.steal - before.steal)) / total };
}
