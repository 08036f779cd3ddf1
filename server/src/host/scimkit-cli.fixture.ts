/**
 * Runs the `scimkit` command as a process, as an operator's shell does, for the CLI tests.
 */
import { execFile } from "node:child_process";
import { expect } from "vitest";
import { compiledSource } from "../../../test/compiled-source.fixture.js";

/** How a run ended and what it printed. */
export interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `scimkit <args>` as a process, without blocking the test (a host may be answering meanwhile). */
export function scimkit(args: readonly string[], env: Record<string, string>, timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [compiledSource("server/src/host/cli.ts"), ...args],
      // Only what the test sets: no SCIMKIT_* of the shell running the tests.
      { encoding: "utf8", env: { PATH: process.env["PATH"] ?? "", ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ status: code, stdout, stderr });
      },
    );
  });
}

/** Runs `scimkit <args> --json` expecting exit 0, and parses its one JSON object. */
export async function scimkitJson<T>(args: readonly string[], env: Record<string, string>): Promise<T> {
  const run = await scimkit([...args, "--json"], env);
  expect(run.status, `${args.join(" ")}: ${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout) as T;
}
