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
    const result = parsePatchRequest({ schemas: ["urn:scim:schemas:core:1.0", PATCH_OP_SCHEMA.toUpperCase()], Operations: [{ op: "remove", path: "x" }] });
    expect(result.ok).toBe(true);
  });

  it("treats a null or blank path as no path", () => {
    const result = parsePatchRequest({ Operations: [{ op: "add", path: null, value: {} }, { op: "add", path: " ", value: {} }] });
    expect(result.ok && result.value.map((operation) => operation.path)).toEqual([undefined, undefined]);
  });

  it("names the offending operation", () => {
    const result = parsePatchRequest({ Operations: [{ op: "add", path: "a", value: 1 }, { op: "test", path: "a" }] });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.scimType).toBe("invalidSyntax");
      expect(result.error.detail).toContain("Operations[1].op");
    }
  });
});
