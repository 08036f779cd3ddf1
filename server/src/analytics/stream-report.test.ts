import { EventEmitter } from "node:events";
import type { Response } from "express";
import { describe, expect, it } from "vitest";
import type { AnalyticsStore, Operation, ReportRow } from "./analytics-store.js";
import { streamReport } from "./stream-report.js";

const OPERATION: Operation = {
  id: "01890a5d-ac96-774b-bcce-b302099a8057",
  kind: "campaign-users-report",
  orgId: "acme",
  subjectId: "01890a5d-ac96-774b-bcce-b302099a8058",
  status: "succeeded",
  progress: { done: 3000, total: 3000 },
  createdAt: "2026-03-01T09:00:00.000Z",
};

/** A response that takes every write into `chunks` but reports a full buffer until `drain()`. */
class SlowResponse extends EventEmitter {
  statusCode = 0;
  destroyed = false;
  ended = false;
  readonly chunks: string[] = [];
  readonly headers = new Map<string, unknown>();
  setHeader(name: string, value: unknown): void {
    this.headers.set(name.toLowerCase(), value);
  }
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return false;
  }
  end(): void {
    this.ended = true;
  }
  drain(): void {
    this.emit("drain");
  }
  close(): void {
    this.destroyed = true;
    this.emit("close");
  }
}

/** A store whose report is `pages` pages of 1,000 rows, counting the pages read and whether reading was closed. */
function pagedStore(pages: number): { store: AnalyticsStore; read: () => number; finished: () => boolean } {
  let read = 0;
  let finished = false;
  const store = {
    async *readReportRows(): AsyncIterable<readonly ReportRow[]> {
      try {
        for (let page = 0; page < pages; page += 1) {
          read += 1;
          yield Array.from({ length: 1000 }, (_, index) => ({ userId: `u${page * 1000 + index}`, progressPercent: index % 101 }));
        }
      } finally {
        finished = true;
      }
    },
  } as unknown as AnalyticsStore;
  return { store, read: () => read, finished: () => finished };
}

async function turns(count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) await new Promise((resolve) => setImmediate(resolve));
}

describe("streamReport", () => {
  it("reads the next page only once the client has taken the previous one", async () => {
    const response = new SlowResponse();
    const source = pagedStore(3);
    const done = streamReport(response as unknown as Response, source.store, OPERATION, "json");
    await turns(20);
    // "[" is waiting for a drain: no page has been read yet.
    expect(source.read()).toBe(0);
    response.drain();
    await turns(20);
    expect(source.read()).toBe(1);
    response.drain();
    await turns(20);
    expect(source.read()).toBe(2);
    response.drain();
    await turns(20);
    response.drain();
    await turns(20);
    response.drain();
    await done;
    expect(source.read()).toBe(3);
    expect(response.ended).toBe(true);
    expect(response.listenerCount("drain") + response.listenerCount("close")).toBe(0);
    const rows = JSON.parse(response.chunks.join("")) as ReportRow[];
    expect(rows).toHaveLength(3000);
    // Every row carries every column of the kind, in order, missing ones as null.
    expect(Object.keys(rows[0] ?? {})[0]).toBe("userId");
    expect(rows[0]?.["userName"]).toBeNull();
  });

  it("stops reading, and closes the reader, when the client goes away", async () => {
    const response = new SlowResponse();
    const source = pagedStore(1000);
    const done = streamReport(response as unknown as Response, source.store, OPERATION, "csv");
    await turns(20);
    response.drain();
    await turns(20);
    response.close();
    await done;
    expect(source.read()).toBeLessThanOrEqual(2);
    expect(source.finished()).toBe(true);
    expect(response.ended).toBe(false);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
  });
});
