import { describe, expect, it } from "vitest";
import { changesMembers, planMembership } from "./membership-plan.js";

const known = (id: string): boolean => !id.startsWith("ghost");

/** A member set that refuses to be walked: a delta must answer with lookups alone. */
class UnwalkableSet extends Set<string> {
  override [Symbol.iterator](): SetIterator<string> {
    throw new Error("walked the member set");
  }
  override values(): SetIterator<string> {
    throw new Error("walked the member set");
  }
  override forEach(): void {
    throw new Error("walked the member set");
  }
}

describe("planMembership", () => {
  it("plans a delta against a large set with lookups only", () => {
    const current = new UnwalkableSet();
    for (let index = 0; index < 100_000; index++) current.add(`u${index}`);
    const plan = planMembership(current, { kind: "delta", add: ["u1", "u100000", "ghost"], remove: ["u7", "u100001"] }, known);
    expect(plan).toEqual({ added: ["u100000"], removed: ["u7"], ignored: ["ghost"] });
  });

  it("plans a replacement as old minus new and new minus old", () => {
    const plan = planMembership(new Set(["a", "b", "c"]), { kind: "replace", ids: ["d", "b", "ghost", "d"] }, known);
    expect(plan).toEqual({ added: ["d"], removed: ["a", "c"], ignored: ["ghost"] });
  });

  it("names each id once, however often the delta repeats it", () => {
    const plan = planMembership(new Set(["a"]), { kind: "delta", add: ["b", "b", "ghost", "ghost"], remove: ["a", "a"] }, known);
    expect(plan).toEqual({ added: ["b"], removed: ["a"], ignored: ["ghost"] });
  });

  it("reports whether anything changes", () => {
    expect(changesMembers(planMembership(new Set(["a"]), { kind: "delta", add: ["a"], remove: ["b"] }, known))).toBe(false);
    expect(changesMembers(planMembership(new Set(["a"]), { kind: "replace", ids: ["a"] }, known))).toBe(false);
    expect(changesMembers(planMembership(new Set(["a"]), { kind: "replace", ids: [] }, known))).toBe(true);
  });
});
