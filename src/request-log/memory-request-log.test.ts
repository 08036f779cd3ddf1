import { describe, expect, it } from "vitest";
import { memoryRequestLog } from "./memory-request-log.js";
import type { RequestLogEntry } from "./request-log.js";

let counter = 0;
function entry(overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  counter += 1;
  return {
    requestId: `r${counter}`,
    orgId: "acme",
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(),
    method: "GET",
    path: "/scim/Organizations/acme/v2/Users",
    status: 200,
    durationMs: 1,
    authenticated: true,
    identityProvider: "other",
    ...overrides,
  };
}

describe("memoryRequestLog", () => {
  it("lists an organization's entries newest first, never another organization's", async () => {
    const log = memoryRequestLog();
    const first = entry();
    const other = entry({ orgId: "globex" });
    const second = entry();
    for (const e of [first, other, second]) log.record(e);
    expect((await log.list("acme")).entries).toEqual([second, first]);
    expect((await log.list("globex")).entries).toEqual([other]);
    expect((await log.list("initech")).entries).toEqual([]);
  });

  it("keeps the newest `capacity` entries, all organizations together", async () => {
    const log = memoryRequestLog({ capacity: 3 });
    const entries = [entry(), entry({ orgId: "globex" }), entry(), entry(), entry()];
    for (const e of entries) log.record(e);
    expect((await log.list("acme")).entries).toEqual([entries[4], entries[3], entries[2]]);
    expect((await log.list("globex")).entries).toEqual([]);
  });

  it("filters by time range, status class, resource id, identity provider and request id", async () => {
    const log = memoryRequestLog();
    const ok = entry({ resourceId: "u1", identityProvider: "okta" });
    const notFound = entry({ status: 404, resourceId: "u2", identityProvider: "entra" });
    const conflict = entry({ status: 409, resourceId: "u1", identityProvider: "entra" });
    for (const e of [ok, notFound, conflict]) log.record(e);
    expect((await log.list("acme", { statusClass: 4 })).entries).toEqual([conflict, notFound]);
    expect((await log.list("acme", { statusClass: 2 })).entries).toEqual([ok]);
    expect((await log.list("acme", { resourceId: "u1" })).entries).toEqual([conflict, ok]);
    expect((await log.list("acme", { identityProvider: "entra", resourceId: "u1" })).entries).toEqual([conflict]);
    expect((await log.list("acme", { requestId: notFound.requestId })).entries).toEqual([notFound]);
    expect((await log.list("acme", { from: notFound.at })).entries).toEqual([conflict, notFound]);
    expect((await log.list("acme", { to: notFound.at })).entries).toEqual([ok]);
    expect((await log.list("acme", { from: notFound.at, to: conflict.at })).entries).toEqual([notFound]);
  });

  it("pages with cursors, continuing after the previous page's last entry", async () => {
    const log = memoryRequestLog();
    const entries = Array.from({ length: 7 }, () => entry());
    for (const e of entries) log.record(e);
    const newest = [...entries].reverse();
    const first = await log.list("acme", { limit: 3 });
    expect(first.entries).toEqual(newest.slice(0, 3));
    const second = await log.list("acme", { limit: 3, cursor: first.nextCursor });
    expect(second.entries).toEqual(newest.slice(3, 6));
    const third = await log.list("acme", { limit: 3, cursor: second.nextCursor });
    expect(third).toEqual({ entries: newest.slice(6) });
  });

  it("keeps a page stable while newer entries arrive, and gives no cursor when nothing older matches", async () => {
    const log = memoryRequestLog();
    const entries = [entry(), entry({ status: 500 }), entry(), entry({ status: 503 })];
    for (const e of entries) log.record(e);
    const first = await log.list("acme", { statusClass: 5, limit: 1 });
    expect(first.entries).toEqual([entries[3]]);
    log.record(entry({ status: 502 }));
    const second = await log.list("acme", { statusClass: 5, limit: 1, cursor: first.nextCursor });
    expect(second).toEqual({ entries: [entries[1]] });
  });

  it("refuses a malformed query with a RangeError naming the member", async () => {
    const log = memoryRequestLog();
    await expect(log.list("acme", { limit: 0 })).rejects.toThrow(/limit/);
    await expect(log.list("acme", { limit: 1001 })).rejects.toThrow(/limit/);
    await expect(log.list("acme", { cursor: "abc" })).rejects.toThrow(/cursor/);
    await expect(log.list("acme", { from: "yesterday" })).rejects.toThrow(/from/);
    await expect(log.list("acme", { statusClass: 7 as 5 })).rejects.toThrow(/statusClass/);
    expect(() => memoryRequestLog({ capacity: 0 })).toThrow(/capacity/);
  });

  it("passes maxBodyBytes on to the router", () => {
    expect(memoryRequestLog({ maxBodyBytes: 1024 }).maxBodyBytes).toBe(1024);
    expect(memoryRequestLog().maxBodyBytes).toBeUndefined();
  });
});
