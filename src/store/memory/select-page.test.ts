import { describe, expect, it } from "vitest";
import type { ListEntry } from "../../scim/list/sort-key.js";
import { selectPage } from "./select-page.js";

const ascending: readonly ListEntry[] = [
  { key: "a", id: "3" },
  { key: "b", id: "1" },
  { key: "b", id: "2" },
  { key: null, id: "0" },
];
const descending: readonly ListEntry[] = [
  { key: null, id: "0" },
  { key: "b", id: "1" },
  { key: "b", id: "2" },
  { key: "a", id: "3" },
];
const ids = (entries: readonly ListEntry[]) => entries.map((entry) => entry.id);

describe("selectPage", () => {
  it("takes count entries from the 1-based startIndex (RFC 7644 §3.4.2.4)", () => {
    expect(ids(selectPage(ascending, { kind: "index", startIndex: 2, count: 2 }, "ascending"))).toEqual(["1", "2"]);
    expect(selectPage(ascending, { kind: "index", startIndex: 1, count: 0 }, "ascending")).toEqual([]);
    expect(selectPage(ascending, { kind: "index", startIndex: 9, count: 5 }, "ascending")).toEqual([]);
  });

  it("resumes a cursor strictly after its position, ties broken by id", () => {
    expect(ids(selectPage(ascending, { kind: "cursor", count: 10 }, "ascending"))).toEqual(["3", "1", "2", "0"]);
    expect(ids(selectPage(ascending, { kind: "cursor", after: { key: "b", id: "1" }, count: 10 }, "ascending"))).toEqual(["2", "0"]);
    expect(ids(selectPage(descending, { kind: "cursor", after: { key: null, id: "0" }, count: 2 }, "descending"))).toEqual(["1", "2"]);
  });

  it("resumes after a position whose entry is gone", () => {
    expect(ids(selectPage(ascending, { kind: "cursor", after: { key: "b", id: "15" }, count: 10 }, "ascending"))).toEqual(["2", "0"]);
    expect(selectPage(ascending, { kind: "cursor", after: { key: null, id: "9" }, count: 10 }, "ascending")).toEqual([]);
  });
});
