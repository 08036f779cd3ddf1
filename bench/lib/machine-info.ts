/** What the run ran on, for the report. */
import { execFileSync } from "node:child_process";
import { cpus, totalmem, loadavg, release, platform } from "node:os";

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly totalMemoryBytes: number;
  readonly platform: string;
  readonly nodeVersion: string;
  readonly loadAverageAtStart: readonly number[];
  readonly tasksetAvailable: boolean;
  readonly pinned: boolean;
  readonly postgresVersion?: string;
}

/** Whether `taskset` can be run. */
export function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Describes this machine; `pinned` says whether targets and runner were put on separate cores. */
export function machineInfo(pinned: boolean, postgresVersion?: string): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model ?? "unknown",
    cpuCount: list.length,
    totalMemoryBytes: totalmem(),
    platform: `${platform()} ${release()}`,
    nodeVersion: process.version,
    loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
    tasksetAvailable: hasTaskset(),
    pinned,
    ...(postgresVersion ? { postgresVersion } : {}),
  };
}

/** Puts this process (the runner and its load generator) on core 0. */
export function pinSelf(core: number): boolean {
  try {
    execFileSync("taskset", ["-a", "-cp", String(core), String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
