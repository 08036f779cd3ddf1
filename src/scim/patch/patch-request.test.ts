import { describe, expect, it } from "vitest";
import { parsePatchRequest, PATCH_OP_SCHEMA } from "./patch-request.js";

describe("parsePatchRequest", () => {
  it("lists operations with canonical op names, paths and value presence", () => {
    const result = parsePatchRequest({
      schemas: [PATCH_OP_SCHEMA],
      Operations: [
        { op: "Add", path: "members", value: [{ value: "1" }] },
        { op: "REPLACE", value: { active: false } },
        { op: "remove", path: "title" },
        { op: "replace", path: "nickName", value: null },
      ],
    });
    expect(result).toEqual({
      ok: true,
      value: [
        { index: 0, op: "add", path: "members", hasValue: true, value: [{ value: "1" }] },
        { index: 1, op: "replace", hasValue: true, value: { active: false } },
        { index: 2, op: "remove", path: "title", hasValue: false, value: undefined },
        { index: 3, op: "replace", path: "nickName", hasValue: true, value: null },
      ],
    });
  });

  it("reads member names case-insensitively and tolerates a missing schemas", () => {
    const result = parsePatchRequest({ operations: [{ OP: "add", PATH: "title", VALUE: "x" }] });
    expect(result).toEqual({ ok: true, value: [{ index: 0, op: "add", path: "title", hasValue: true, value: "x" }] });
  });

  it("accepts extra schema URNs beside the PatchOp one, in any case", () => {
    const result = parsePatchRequest({
      schemas: ["urn:scim:schemas:core:1.0", PATCH_OP_SCHEMA.toUpperCase()],
      Operations: [{ op: "remove", path: "x" }],
    });
    expect(result.ok).toBe(true);
  });

  it("treats a null or blank path as no path", () => {
    const result = parsePatchRequest({
      Operations: [
        { op: "add", path: null, value: {} },
        { op: "add", path: " ", value: {} },
      ],
    });
    expect(result.ok && result.value.map((operation) => operation.path)).toEqual([undefined, undefined]);
  });

  it("names the offending operation", () => {
    const result = parsePatchRequest({
      Operations: [
        { op: "add", path: "a", value: 1 },
        { op: "test", path: "a" },
      ],
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.scimType).toBe("invalidSyntax");
      expect(result.error.detail).toContain("Operations[1].op");
    }
  });

  // Regression: the detail serialized the value whole, and one nested 10,000 levels deep overflowed
  // the stack (a 500 instead of the 400).
  it("names an op or path that is not a string by its kind, however deeply it is nested", () => {
    let deep: unknown = "add";
    for (let level = 0; level < 10_000; level += 1) deep = [deep];
    const op = parsePatchRequest({ Operations: [{ op: deep, path: "title", value: "x" }] });
    expect(op.ok || [op.error.scimType, op.error.detail]).toEqual([
      "invalidSyntax",
      'Operations[0].op must be "add", "remove" or "replace"; it is not an array.',
    ]);
    const path = parsePatchRequest({ Operations: [{ op: "add", path: { a: deep }, value: "x" }] });
    expect(path.ok || [path.error.scimType, path.error.detail]).toEqual([
      "invalidPath",
      "Operations[0].path must be a string, not an object.",
    ]);
    const long = parsePatchRequest({ Operations: [{ op: "x".repeat(100_000) }] });
    expect(long.ok || long.error.detail.length).toBeLessThan(200);
  });
});
