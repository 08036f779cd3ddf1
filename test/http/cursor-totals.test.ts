/**
 * A cursor walk counts its matches once, on the first page, and carries the total in the cursor,
 * so walking a million resources does not count them again on every page.
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import type { ListRequest, ResourceStore } from "../../src/store/resource-store.js";
import { createTestApp, userBody } from "./harness.js";

describe("cursor walks", () => {
  it("ask the store to count only on the first page and report that total on every page", async () => {
    const inner = memoryStore();
    const requests: ListRequest[] = [];
    const store: ResourceStore = { ...inner, list: (request) => (requests.push(request), inner.list(request)) };
    const t = await createTestApp({ store });
    for (let index = 0; index < 5; index += 1) expect((await t.post("/Users", userBody(`walker${index}`))).status).toBe(201);

    const first = await t.get("/Users?cursor=&count=2");
    expect(first.body.totalResults).toBe(5);
    // A user created mid-walk does not change the total the walk reports.
    expect((await t.post("/Users", userBody("latecomer"))).status).toBe(201);
    const second = await t.get(`/Users?cursor=${encodeURIComponent(first.body.nextCursor as string)}&count=2`);
    expect(second.status).toBe(200);
    expect(second.body.totalResults).toBe(5);
    expect(requests.map((request) => request.countTotal)).toEqual([undefined, false]);
  });
});
