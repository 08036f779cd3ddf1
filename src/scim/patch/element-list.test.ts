import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../result.js";
import { fuzzParameters, PROPERTY_TIMEOUT } from "../fuzz.fixture.js";
import { matchesElement } from "../filter/matches-filter.js";
import { parsePatchPath } from "../path/parse-patch-path.js";
import type { PatchPath } from "../path/patch-path.js";
import { containsValue, createElementList, type ElementList } from "./element-list.js";
import { users } from "./patch.fixture.js";

const emails = users.core.attributes.find((attribute) => attribute.name === "emails")!;

function pathOf(text: string): Required<Pick<PatchPath, "filter">> & PatchPath {
  const path = unwrap(parsePatchPath(users, text));
  if (!path.filter) throw new Error(`${text} has no filter`);
  return { ...path, filter: path.filter };
}

function select(list: ElementList, text: string): unknown[] {
  const path = pathOf(text);
  return list.select(path.target, path.filter).map((position) => list.at(position));
}

/** What a scan of every element answers: the reference the indexes must agree with. */
function scanned(list: ElementList, text: string): unknown[] {
  const { filter } = pathOf(text);
  return list.values().filter((element) => matchesElement(filter, element));
}

describe("ElementList: the eq index of a value filter", () => {
  it("finds elements by a compared sub-attribute, case-insensitively where the schema says so", () => {
    const list = createElementList(emails, [
      { value: "a@x", type: "work" },
      { value: "b@x", type: "home" },
      { value: "c@x", type: "Work" },
    ]);
    expect(select(list, 'emails[type eq "WORK"]')).toEqual([
      { value: "a@x", type: "work" },
      { value: "c@x", type: "Work" },
    ]);
    expect(select(list, 'emails[type eq "work" and value eq "c@x"]')).toEqual([{ value: "c@x", type: "Work" }]);
    expect(select(list, 'emails[value eq "a@x" or value eq "b@x"]')).toEqual([
      { value: "a@x", type: "work" },
      { value: "b@x", type: "home" },
    ]);
    expect(select(list, 'emails[type eq "other"]')).toEqual([]);
  });

  it("stays correct when the compared sub-attribute changes, elements go and come, and primary moves", () => {
    const list = createElementList(emails, [
      { value: "a@x", type: "work", primary: true },
      { value: "b@x", type: "home" },
    ]);
    // Built by the first lookup, then maintained by every change below.
    expect(select(list, 'emails[type eq "home"]')).toEqual([{ value: "b@x", type: "home" }]);
    list.set(0, { value: "a@x", type: "home", primary: true });
    expect(select(list, 'emails[type eq "home"]')).toEqual([
      { value: "a@x", type: "home", primary: true },
      { value: "b@x", type: "home" },
    ]);
    expect(select(list, 'emails[type eq "work"]')).toEqual([]);
    list.remove(1);
    expect(select(list, 'emails[type eq "home"]')).toEqual([{ value: "a@x", type: "home", primary: true }]);
    const appended = list.append({ value: "c@x", type: "home", primary: false });
    expect(select(list, 'emails[type eq "home"]').map((element) => (element as { value: string }).value)).toEqual(["a@x", "c@x"]);
    expect(list.primaries()).toEqual([0]);
    list.set(appended, { value: "c@x", type: "home", primary: true });
    list.set(0, { value: "a@x", type: "home", primary: false });
    expect(list.primaries()).toEqual([appended]);
    expect(select(list, "emails[primary eq true]")).toEqual([{ value: "c@x", type: "home", primary: true }]);
    expect(list.values()).toEqual([
      { value: "a@x", type: "home", primary: false },
      { value: "c@x", type: "home", primary: true },
    ]);
  });

  it("counts a change only when an element really changes", () => {
    const list = createElementList(emails, [{ value: "a@x", type: "work" }]);
    list.set(0, { type: "work", value: "a@x" });
    expect(list.changed).toBe(false);
    list.set(0, { value: "a@x", type: "home" });
    expect(list.revision).toBe(1);
  });
});

describe("ElementList: values found by hashing, not by comparing with each", () => {
  it("finds the elements containing a candidate (RFC 7644 §3.5.2.1), lowest position first", () => {
    const list = createElementList(emails, [
      { value: "a@x", type: "work", primary: true },
      { value: "b@x", type: "home" },
      { value: "a@x", type: "other" },
    ]);
    expect(list.matching({ value: "a@x" })).toEqual([0, 2]);
    expect(list.matching({ value: "a@x", type: "other" })).toEqual([2]);
    expect(list.matching({ value: "a@x", display: "A" })).toEqual([]);
    expect(list.matching({})).toEqual([]);
    list.append({ value: "d@x" });
    expect(list.matching({ value: "d@x" })).toEqual([3]);
    list.remove(0);
    expect(list.matching({ value: "a@x" })).toEqual([2]);
  });

  it("uses the element key it is given instead (group members are the same when their ids are)", () => {
    const list = createElementList(emails, [{ value: "u1", display: "One" }], (element) =>
      JSON.stringify((element as { value?: unknown }).value),
    );
    expect(list.matching({ value: "u1", display: "Someone else" })).toEqual([0]);
    expect(list.matching({ value: "u2" })).toEqual([]);
  });

  it("compares with each element once candidates have named more sets of sub-attributes than it indexes", () => {
    const addresses = users.core.attributes.find((attribute) => attribute.name === "addresses")!;
    const subs = ["formatted", "streetAddress", "locality", "region", "postalCode", "country", "type"];
    const full = Object.fromEntries(subs.map((name) => [name, `${name}-1`]));
    const list = createElementList(addresses, [full, { ...full, type: "other" }]);
    // Every non-empty subset of five names: 31 sets, more than the indexes cover.
    for (let mask = 1; mask < 32; mask += 1) {
      const candidate = Object.fromEntries(subs.filter((_, index) => (mask >> index) & 1).map((name) => [name, full[name]]));
      expect(list.matching(candidate), JSON.stringify(candidate)).toEqual([0, 1]);
    }
    expect(list.matching({ ...full })).toEqual([0]);
  });

  it("dedupes 20,000 values in one pass: each found by its hash", () => {
    const list = createElementList(emails, []);
    for (let index = 0; index < 20_000; index += 1) {
      const candidate = { value: `user${index % 10_000}@example.com`, type: "work" };
      if (list.matching(candidate).length === 0) list.append(candidate);
    }
    expect(list.size).toBe(10_000);
  });
});

describe("ElementList agrees with a scan of every element", () => {
  const value = fc.constantFrom("a@x", "b@x", "A@x", "c@x");
  const type = fc.constantFrom("work", "home", "Work");
  const element = fc.record({ value, type, primary: fc.boolean(), display: fc.constantFrom("One", "Two") }, { requiredKeys: ["value"] });
  const change = fc.oneof(
    fc.record({ kind: fc.constant("set" as const), at: fc.nat(12), element }),
    fc.record({ kind: fc.constant("remove" as const), at: fc.nat(12) }),
    fc.record({ kind: fc.constant("append" as const), element }),
  );
  const filters = [
    'emails[value eq "a@x"]',
    'emails[type eq "work"]',
    'emails[type eq "work" and value eq "b@x"]',
    'emails[value eq "a@x" or type eq "home"]',
    "emails[primary eq true]",
    'emails[value co "x" and not (type eq "home")]',
    'emails[display eq "one" or value eq "c@x"]',
  ];

  it(
    "for every filter, candidate and primary, after any sequence of changes",
    () => {
      fc.assert(
        fc.property(fc.array(element, { maxLength: 8 }), fc.array(change, { maxLength: 30 }), element, (initial, changes, candidate) => {
          const list = createElementList(emails, initial);
          // Build the indexes before the changes, so that the changes must maintain them.
          for (const text of filters) select(list, text);
          list.matching(candidate);
          for (const step of changes) {
            const positions = list.positions();
            if (step.kind === "append") list.append(step.element);
            else if (positions.length === 0) continue;
            else if (step.kind === "set") list.set(positions[step.at % positions.length]!, step.element);
            else list.remove(positions[step.at % positions.length]!);
          }
          for (const text of filters) expect(select(list, text), text).toEqual(scanned(list, text));
          const containing = list.positions().filter((position) => containsValue(list.at(position), candidate));
          expect(list.matching(candidate)).toEqual(containing);
          expect(list.primaries()).toEqual(
            list.positions().filter((position) => (list.at(position) as { primary?: boolean }).primary === true),
          );
        }),
        fuzzParameters(300),
      );
    },
    PROPERTY_TIMEOUT,
  );
});
