/**
 * What the main thread sends SQLite's threads while some work runs, read off
 * `Worker.prototype.postMessage`: for tests that count round trips (one message per statement
 * that is waited for, with the statements sent ahead of it).
 */
import { Worker } from "node:worker_threads";
import { vi } from "vitest";
import type { WorkerRequest } from "./worker-messages.js";

/** The SQL of each message sent to a thread while `work` runs: the statements sent ahead, then the one waited for. */
export async function messagesSentDuring(work: () => Promise<unknown>): Promise<string[][]> {
  const posted = vi.spyOn(Worker.prototype, "postMessage");
  try {
    await work();
    return posted.mock.calls
      .map(([request]) => request as WorkerRequest)
      .flatMap((request) => (request.kind === "execute" ? [[...(request.ahead ?? []).map((ahead) => ahead.sql), request.sql]] : []));
  } finally {
    posted.mockRestore();
  }
}
