import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters } from "../fuzz.fixture.js";
import { addMembers, noMembershipChange, removeMembers, replaceMembers, type MembershipDelta } from "./membership-delta.js";
import { createMembershipDeltaBuilder } from "./membership-delta-builder.js";

type Call = { readonly kind: "add" | "remove" | "replace"; readonly ids: readonly string[] };

function composed(calls: readonly Call[]): MembershipDelta {
  return calls.reduce<MembershipDelta>(
    (delta, call) =>
      call.kind === "add"
        ? addMembers(delta, call.ids)
        : call.kind === "remove"
          ? removeMembers(delta, call.ids)
          : replaceMembers(call.ids),
    noMembershipChange,
  );
}

describe("createMembershipDeltaBuilder", () => {
  it("builds what addMembers, removeMembers and replaceMembers compose, order included", () => {
    const call = fc.record({
      kind: fc.constantFrom("add" as const, "remove" as const, "replace" as const),
      ids: fc.array(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 4 }),
    });
    fc.assert(
      fc.property(fc.array(call, { maxLength: 20 }), (calls) => {
        const builder = createMembershipDeltaBuilder();
        for (const { kind, ids } of calls) builder[kind](ids);
        const expected = composed(calls);
        expect(builder.build()).toEqual(expected);
        expect(builder.size).toBe(expected.kind === "replace" ? expected.ids.length : expected.add.length + expected.remove.length);
      }),
      fuzzParameters(500),
    );
  });

  it("composes 20,000 single-member operations in one pass over the ids", () => {
    const builder = createMembershipDeltaBuilder();
    for (let index = 0; index < 20_000; index += 1) builder[index % 4 === 3 ? "remove" : "add"]([`u${index % 5_000}`]);
    const delta = builder.build();
    expect(delta.kind).toBe("delta");
    expect(builder.size).toBe(5_000);
  });
});
