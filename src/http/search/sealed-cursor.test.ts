import { describe, expect, it } from "vitest";
import { openCursor, sealCursor } from "./sealed-cursor.js";

const FIELDS = ["k", "i"] as const;

describe("sealCursor / openCursor", () => {
  it("round-trips the fields for the same binding and secret", () => {
    const cursor = sealCursor(FIELDS, { k: "alice", i: "42" }, ["acme", "User"], "s");
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(openCursor(cursor, FIELDS, ["acme", "User"], "s")).toEqual({ k: "alice", i: "42" });
  });

  it("keeps scalar types, null included", () => {
    const cursor = sealCursor(["a", "b", "c", "d"], { a: null, b: 3, c: false, d: "x" }, [], "");
    expect(openCursor(cursor, ["a", "b", "c", "d"], [], "")).toEqual({ a: null, b: 3, c: false, d: "x" });
  });

  it("refuses another binding, another secret, other field names and edited payloads", () => {
    const cursor = sealCursor(FIELDS, { k: "alice", i: "42" }, ["acme", "User"], "s");
    expect(openCursor(cursor, FIELDS, ["globex", "User"], "s")).toBeUndefined();
    expect(openCursor(cursor, FIELDS, ["acme", "User"], "t")).toBeUndefined();
    expect(openCursor(cursor, ["k"], ["acme", "User"], "s")).toBeUndefined();
    const payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;
    const edit = (change: Record<string, unknown>): string => Buffer.from(JSON.stringify({ ...payload, ...change })).toString("base64url");
    expect(openCursor(edit({ k: "bob" }), FIELDS, ["acme", "User"], "s")).toBeUndefined();
    expect(openCursor(edit({ i: 42 }), FIELDS, ["acme", "User"], "s")).toBeUndefined();
    expect(openCursor(edit({ k: { nested: true } }), FIELDS, ["acme", "User"], "s")).toBeUndefined();
    expect(openCursor(edit({ extra: 1 }), FIELDS, ["acme", "User"], "s")).toBeUndefined();
  });

  it("refuses garbage without throwing", () => {
    for (const garbage of ["", "!!", "e30", "W10", Buffer.from("null").toString("base64url"), "x".repeat(5000)]) {
      expect(openCursor(garbage, FIELDS, [], "")).toBeUndefined();
    }
  });

  it("reserves the seal's field name", () => {
    expect(() => sealCursor(["q"], { q: "x" }, [], "")).toThrow(/reserved/);
  });
});
