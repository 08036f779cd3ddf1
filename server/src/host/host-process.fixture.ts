/**
 * Runs the host server as `npm start` does — a real Node process configured from the
 * environment — and reads its output line by line.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { compiledSource } from "../../../test/compiled-source.fixture.js";

export interface Host {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[];
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
}

const running: ChildProcessWithoutNullStreams[] = [];

export function startHost(env: Record<string, string>): Host {
  const child = spawn(process.execPath, [compiledSource("server/src/host/cli.ts"), "serve"], {
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  running.push(child);
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (match: RegExpMatchArray) => void }[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(line);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  const waitFor = (pattern: RegExp): Promise<RegExpMatchArray> => {
    for (const line of lines) {
      const match = pattern.exec(line);
      if (match) return Promise.resolve(match);
    }
    return new Promise((resolve, reject) => {
      waiters.push({ pattern, resolve });
      child.once("exit", (code) => reject(new Error(`host exited (${code}) before printing ${pattern}; output:\n${lines.join("\n")}`)));
    });
  };
  return { child, lines, waitFor };
}

/** Kills every host still running; call it after each test. */
export function killHosts(): void {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
}
