import { describe, expect, it } from "vitest";
import { cpuSplit, parseProcStat, processTree, type CpuSplitSnapshot } from "./cpu-split.js";

const entry = (pid: number, ppid: number, command: string, ticks: number) => [pid, { pid, ppid, command, ticks }] as const;

describe("where the cores went", () => {
  it("reads a /proc stat line whose command holds spaces and parentheses", () => {
    const line = "4242 (node (worker) 1) S 4000 4242 4000 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 11 0 500 1000 200";
    expect(parseProcStat(line)).toEqual({ pid: 4242, ppid: 4000, command: "node (worker) 1", ticks: 325 });
    expect(parseProcStat("garbage")).toBeUndefined();
  });

  it("counts a host's workers and their children as the host", () => {
    const processes = new Map([entry(10, 1, "node", 0), entry(11, 10, "node", 0), entry(12, 11, "sh", 0), entry(13, 1, "node", 0)]);
    expect([...processTree(processes, 10)].sort()).toEqual([10, 11, 12]);
  });

  it("splits the busy ticks between host, client, PostgreSQL and the rest, in shares of all cores", () => {
    const before: CpuSplitSnapshot = {
      total: 1000,
      busy: 500,
      steal: 0,
      processes: new Map([entry(10, 1, "node", 100), entry(11, 10, "node", 50), entry(20, 1, "node", 10), entry(30, 1, "postgres", 0)]),
    };
    const after: CpuSplitSnapshot = {
      total: 1200,
      busy: 680,
      steal: 10,
      // Worker 12 started during the phase: all its ticks count.
      processes: new Map([
        entry(10, 1, "node", 110),
        entry(11, 10, "node", 90),
        entry(12, 10, "node", 20),
        entry(20, 1, "node", 40),
        entry(30, 1, "postgres", 50),
      ]),
    };
    expect(cpuSplit(before, after, 10, 20)).toEqual({
      hostPct: 35,
      runnerPct: 15,
      postgresPct: 25,
      otherPct: 15,
      stealPct: 5,
      idlePct: 5,
    });
    expect(cpuSplit(after, before, 10, 20)).toBeUndefined();
  });
});
