import { describe, expect, it } from "vitest";
import { uuidV7 } from "./uuid-v7.js";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("uuidV7", () => {
  it("gives distinct version-7 ids that sort in the order they were made, across pool refills", () => {
    const ids = Array.from({ length: 5_000 }, () => uuidV7());
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("carries the current time in its first 48 bits", () => {
    const before = Date.now();
    const id = uuidV7();
    const millis = Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);
    expect(millis).toBeGreaterThanOrEqual(before);
    expect(millis).toBeLessThanOrEqual(Date.now() + 1);
  });
});
