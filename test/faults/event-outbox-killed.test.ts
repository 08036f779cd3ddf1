/**
 * The event outbox survives a SIGKILL (issue 20): a host commits a user and dies in the moment
 * between the commit and its listener; the next host on the same database delivers that event —
 * the same `jti`, the same sequence — once, and a further recovery pass finds nothing left to
 * deliver. Real processes over a real SQLite file.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { compiledSource } from "../compiled-source.fixture.js";

const scratch = mkdtempSync(join(tmpdir(), "scimkit-outbox-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  exited(): Promise<void>;
}

const running: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function startChild(env: Record<string, string>): Child {
  const child = spawn(process.execPath, [compiledSource("test/faults/event-outbox-child.ts")], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  running.push(child);
  const lines: string[] = [];
  const errors: string[] = [];
  createInterface({ input: child.stderr }).on("line", (line) => errors.push(line));
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
  const exit = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    process: child,
    waitFor(pattern) {
      for (const line of lines) {
        const match = pattern.exec(line);
        if (match) return Promise.resolve(match);
      }
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exit.then(() => reject(new Error(`child exited before printing ${pattern}:\n${lines.join("\n")}\n${errors.join("\n")}`)));
      });
    },
    exited: () => exit,
  };
}

function logged(log: string): { jti: string; sequence: number; type: string; id: string }[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { jti: string; sequence: number; type: string; id: string });
}

describe("event outbox across a SIGKILL", () => {
  it("delivers an event committed by a host killed before its listener ran, exactly once, after a restart", async () => {
    const database = join(scratch, "scim.db");
    const log = join(scratch, "events.log");
    const env = { DATABASE: database, LOG: log };

    const first = startChild({ ...env, MODE: "hang" });
    const port = (await first.waitFor(/^LISTENING (\d+)$/))[1];
    const post = fetch(`http://127.0.0.1:${port}/scim/Organizations/acme/v2/Users`, {
      method: "POST",
      headers: { Authorization: "Bearer outbox-test-token", "Content-Type": "application/scim+json" },
      body: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "ann" }),
    }).catch((error: unknown) => error);
    // The write has committed and the listener is about to run: the process dies here.
    const jti = (await first.waitFor(/^ENTERED (\S+)$/))[1];
    first.process.kill("SIGKILL");
    await first.exited();
    expect(await post).toBeInstanceOf(Error);
    expect(logged(log)).toEqual([]);

    const second = startChild({ ...env, MODE: "deliver" });
    await second.waitFor(new RegExp(`^DELIVERED ${jti}$`));
    const delivered = logged(log);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ jti, sequence: 1, type: "user.created" });
    // Marked delivered once the listener returned: wait for the mark, then stop the host.
    const db = new Database(database, { readonly: true });
    try {
      for (;;) {
        const row = db.prepare("select pending from scimkit_events where jti = ?").get(jti) as { pending: number } | undefined;
        if (row?.pending === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const users = db.prepare("select id from scimkit_resources").all() as { id: string }[];
      expect(users.map((user) => user.id)).toEqual([delivered[0]?.id]);
    } finally {
      db.close();
    }
    second.process.kill("SIGKILL");
    await second.exited();

    const third = startChild({ ...env, MODE: "recover-once" });
    expect((await third.waitFor(/^RECOVERED (\d+)$/))[1]).toBe("0");
    await third.exited();
    expect(logged(log).filter((event) => event.jti === jti)).toHaveLength(1);
  }, 60_000);
});
