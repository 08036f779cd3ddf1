/**
 * Starts a target process (bench/target-protocol.md), waits for its ready line, and stops it.
 * Pinned to core 1 with `taskset` when asked; its stderr goes to a log file.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { parseReadyLine, type ReadyLine } from "./target-protocol.js";

export interface StartTargetOptions {
  /** Path of the entry, relative to the repository root. */
  readonly entry: string;
  readonly env: Record<string, string>;
  readonly pinToCore?: number;
  readonly nodeArgs: readonly string[];
  readonly logDir: string;
  readonly logName: string;
  readonly cwd: string;
  /** How long to wait for the ready line. */
  readonly readyTimeoutMs?: number;
}

export interface RunningTarget {
  readonly ready: ReadyLine;
  readonly baseUrl: string;
  readonly logFile: string;
  readonly pid: number;
  stop(): Promise<void>;
  /** Whether the process has exited (a crash shows up here). */
  exited(): boolean;
}

/** Spawns the target and resolves once it prints its ready line. */
export async function startTarget(options: StartTargetOptions): Promise<RunningTarget> {
  mkdirSync(options.logDir, { recursive: true });
  const logFile = join(options.logDir, `${options.logName}.log`);
  const log = createWriteStream(logFile);
  const nodeArgv = [...options.nodeArgs, "--conditions=scimkit-source", "--import", "tsx", options.entry];
  const [command, argv] =
    options.pinToCore === undefined ? ["node", nodeArgv] : ["taskset", ["-c", String(options.pinToCore), "node", ...nodeArgv]];
  const child: ChildProcess = spawn(command as string, argv as string[], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let hasExited = false;
  const exit = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      hasExited = true;
      log.write(`\n[runner] exited code=${String(code)} signal=${String(signal)}\n`);
      resolve();
    });
  });
  child.stderr?.pipe(log, { end: false });
  const ready = await new Promise<ReadyLine>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${options.logName}: no ready line within ${options.readyTimeoutMs ?? 120_000} ms (log: ${logFile})`)),
      options.readyTimeoutMs ?? 120_000,
    );
    const lines = createInterface({ input: child.stdout! });
    let found = false;
    lines.on("line", (line) => {
      if (!found) {
        const parsed = parseReadyLine(line);
        if (parsed) {
          found = true;
          clearTimeout(timer);
          resolve(parsed);
          return;
        }
      }
      log.write(`[stdout] ${line}\n`);
    });
    void exit.then(() => {
      clearTimeout(timer);
      if (!found) reject(new Error(`${options.logName}: exited before its ready line (log: ${logFile})`));
    });
  });
  return {
    ready,
    baseUrl: `http://127.0.0.1:${ready.port}`,
    logFile,
    pid: child.pid ?? 0,
    exited: () => hasExited,
    async stop() {
      if (!hasExited) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => {
          if (!hasExited) child.kill("SIGKILL");
        }, 15_000);
        await exit;
        clearTimeout(killer);
      }
      log.end();
    },
  };
}
