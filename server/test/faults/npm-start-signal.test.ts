/**
 * `kill -TERM <pid of npm start>`, as a supervisor stops its main process (issue 14): the signal
 * must reach the host, which shuts down gracefully, and leave the port free for the next start.
 * npm (@npmcli/run-script) forwards SIGTERM to its child, the `sh -c` running the script; dash
 * does not pass it on to a command it waits for, so the script `exec`s node, which replaces the
 * shell: npm's child is then the host itself.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../../test/faults/throwaway-postgres.js";

const TOKEN = "token-acme-npm-start-0123456789abcdef0123456789";
const scratch = mkdtempSync(join(tmpdir(), "scimkit-npm-start-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const started: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

interface NpmStart {
  readonly npm: ChildProcessWithoutNullStreams;
  readonly lines: string[];
  /** Resolves when a line matches; rejects if npm exits first. */
  waitFor(pattern: RegExp): Promise<string>;
}

function npmStart(port: number, database: string): NpmStart {
  const npm = spawn("npm", ["start", "--silent"], {
    env: { ...process.env, PORT: String(port), DATABASE_URL: database, SCIMKIT_ORGS: `acme:${TOKEN}`, SCIMKIT_DEMO_DATA: "0" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  started.push(npm);
  const lines: string[] = [];
  createInterface({ input: npm.stdout }).on("line", (line) => lines.push(line));
  const waitFor = (pattern: RegExp): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        const line = lines.find((candidate) => pattern.test(candidate));
        if (line !== undefined) {
          clearInterval(timer);
          resolve(line);
        } else if (npm.exitCode !== null || npm.signalCode !== null) {
          clearInterval(timer);
          reject(new Error(`npm start exited before printing ${pattern}:\n${lines.join("\n")}`));
        }
      }, 20);
    });
  return { npm, lines, waitFor };
}

/** The pids of `pid`'s children, from /proc (Linux). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("npm start and SIGTERM", () => {
  it("passes SIGTERM on to the host: it shuts down gracefully and the port is free for the next start", { timeout: 90_000 }, async () => {
    const port = await freePort();
    const database = `sqlite:${join(scratch, "npm-start.db")}`;
    const first = npmStart(port, database);
    await first.waitFor(/^SCIM base URL for acme: /);
    const users = await fetch(`http://127.0.0.1:${port}/scim/Organizations/acme/v2/Users`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(users.status).toBe(200);
    // npm's only child is the host, not a shell between them.
    const [host, ...others] = childrenOf(first.npm.pid as number);
    expect(others).toEqual([]);
    expect(readFileSync(`/proc/${host}/cmdline`, "utf8").split("\0")).toContain("serve");

    first.npm.kill("SIGTERM");
    await first.waitFor(/^Store closed$/);
    await once(first.npm, "exit");
    expect(first.lines).toContain("SIGTERM received, shutting down");
    expect(isRunning(host as number)).toBe(false);

    // The next start on the same port succeeds: no EADDRINUSE from a host left behind.
    const second = npmStart(port, database);
    await second.waitFor(/^SCIM base URL for acme: /);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    second.npm.kill("SIGTERM");
    await second.waitFor(/^Store closed$/);
    await once(second.npm, "exit");
  });
});
