/**
 * The pool's lending rules, with stand-in workers: no more than `size` at once, each to one
 * borrower, the rest served in order of arrival; a failed start strands no one in line; closing
 * fails those waiting and closes every worker.
 */
import { describe, expect, it } from "vitest";
import type { SqliteWorker } from "./start-sqlite-worker.js";
import { createWorkerPool } from "./worker-pool.js";

function standIn(name: string): SqliteWorker & { readonly name: string; readonly closed: () => boolean } {
  let closed = false;
  return {
    name,
    execute: () => Promise.resolve({ kind: "done", rows: [] }),
    inTransaction: false,
    get alive() {
      return !closed;
    },
    journalMode: "wal",
    close: async () => {
      closed = true;
    },
    closed: () => closed,
  };
}

describe("createWorkerPool", () => {
  it("starts workers up to its size only, and lends a released one to the first in line", async () => {
    let made = 0;
    const pool = createWorkerPool({ start: async () => standIn(`w${made++}`), size: 2, replaceDead: true });
    const first = await pool.acquire();
    const second = await pool.acquire();
    const order: string[] = [];
    const third = pool.acquire().then((worker) => order.push(`third got ${(worker as ReturnType<typeof standIn>).name}`));
    const fourth = pool.acquire().then((worker) => order.push(`fourth got ${(worker as ReturnType<typeof standIn>).name}`));
    pool.release(second);
    pool.release(first);
    await Promise.all([third, fourth]);
    expect(made).toBe(2);
    expect(order).toEqual(["third got w1", "fourth got w0"]);
    await pool.close();
  });

  it("gives each borrower in line a start of its own when one fails, so none waits forever", async () => {
    let attempts = 0;
    const pool = createWorkerPool({
      start: async () => {
        attempts++;
        throw new Error("unable to open database file");
      },
      size: 1,
      replaceDead: true,
    });
    const outcomes = await Promise.allSettled([pool.acquire(), pool.acquire(), pool.acquire()]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(attempts).toBe(3);
    await pool.close();
  });

  it("replaces a worker that died, when told to", async () => {
    let made = 0;
    const pool = createWorkerPool({ start: async () => standIn(`w${made++}`), size: 1, replaceDead: true });
    const first = await pool.acquire();
    await first.close();
    const waiting = pool.acquire();
    pool.release(first);
    expect(((await waiting) as ReturnType<typeof standIn>).name).toBe("w1");
    await pool.close();
  });

  it("on close fails those waiting, refuses later borrowers and closes every worker, lent ones included", async () => {
    const pool = createWorkerPool({ start: async () => standIn("only"), size: 1, replaceDead: true });
    const lent = (await pool.acquire()) as ReturnType<typeof standIn>;
    const waiting = pool.acquire();
    await pool.close();
    await expect(waiting).rejects.toThrow(/closed/);
    await expect(pool.acquire()).rejects.toThrow(/closed/);
    expect(lent.closed()).toBe(true);
  });
});
