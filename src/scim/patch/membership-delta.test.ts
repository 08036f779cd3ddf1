import { describe, expect, it } from "vitest";
import {
  addMembers,
  applyMembershipDelta,
  composeMembershipDeltas,
  isEmptyMembershipDelta,
  noMembershipChange,
  removeMembers,
  replaceMembers,
} from "./membership-delta.js";

describe("membership deltas compose in operation order", () => {
  it("collects adds and removes, each id once", () => {
    const delta = removeMembers(addMembers(addMembers(noMembershipChange, ["a", "b"]), ["b", "c"]), ["d", "d"]);
    expect(delta).toEqual({ kind: "delta", add: ["a", "b", "c"], remove: ["d"] });
  });

  it("add x then remove x leaves x only in remove", () => {
    expect(removeMembers(addMembers(noMembershipChange, ["x", "y"]), ["x"])).toEqual({ kind: "delta", add: ["y"], remove: ["x"] });
  });

  it("remove x then add x leaves x only in add", () => {
    expect(addMembers(removeMembers(noMembershipChange, ["x"]), ["x"])).toEqual({ kind: "delta", add: ["x"], remove: [] });
  });

  it("replace then add gives a replace with the union", () => {
    expect(addMembers(replaceMembers(["a", "b"]), ["b", "c"])).toEqual({ kind: "replace", ids: ["a", "b", "c"] });
  });

  it("replace then remove gives a replace without the removed ids", () => {
    expect(removeMembers(replaceMembers(["a", "b", "c"]), ["b", "z"])).toEqual({ kind: "replace", ids: ["a", "c"] });
  });

  it("a replace discards everything before it, and dedupes its ids", () => {
    const before = addMembers(removeMembers(noMembershipChange, ["a"]), ["b"]);
    expect(composeMembershipDeltas(before, replaceMembers(["c", "c"]))).toEqual({ kind: "replace", ids: ["c"] });
  });

  it("composing two deltas equals applying their operations in sequence", () => {
    const first = addMembers(removeMembers(noMembershipChange, ["r1"]), ["a1", "x"]);
    const second = removeMembers(addMembers(noMembershipChange, ["r1"]), ["x"]);
    const composed = composeMembershipDeltas(first, second);
    expect(composed).toEqual({ kind: "delta", add: ["a1", "r1"], remove: ["x"] });
    const current = ["r1", "x", "k"];
    const stepwise = applyMembershipDelta(applyMembershipDelta(current, first), second);
    expect(new Set(applyMembershipDelta(current, composed))).toEqual(new Set(stepwise));
    expect(stepwise.sort()).toEqual(["a1", "k", "r1"]);
  });

  it("knows the empty delta", () => {
    expect(isEmptyMembershipDelta(noMembershipChange)).toBe(true);
    expect(isEmptyMembershipDelta(addMembers(noMembershipChange, ["a"]))).toBe(false);
    expect(isEmptyMembershipDelta(replaceMembers([]))).toBe(false);
  });
});

describe("applyMembershipDelta", () => {
  it("removes, then appends ids not yet present, keeping order", () => {
    expect(applyMembershipDelta(["a", "b", "c"], { kind: "delta", add: ["d", "a"], remove: ["b", "zz"] })).toEqual(["a", "c", "d"]);
  });

  it("replaces the whole list", () => {
    expect(applyMembershipDelta(["a", "b"], replaceMembers(["c"]))).toEqual(["c"]);
    expect(applyMembershipDelta(["a", "b"], replaceMembers([]))).toEqual([]);
  });

  it("compares ids exactly", () => {
    expect(applyMembershipDelta(["A"], { kind: "delta", add: ["a"], remove: [] })).toEqual(["A", "a"]);
  });
});
