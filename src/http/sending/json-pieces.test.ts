import { describe, expect, it } from "vitest";
import { CHUNK_ELEMENTS, LARGE_ARRAY, hasLargeArray, jsonPieces } from "./json-pieces.js";

const members = (count: number): Record<string, unknown>[] =>
  Array.from({ length: count }, (_, index) => ({
    value: `u-${index}`,
    type: "User",
    $ref: `https://x.io/Users/u-${index}`,
    display: `名前 "${index}"\n`,
  }));

const group = (count: number): Record<string, unknown> => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
  id: "g",
  displayName: "big",
  members: members(count),
  meta: { resourceType: "Group", version: 'W/"1"', location: "https://x.io/Groups/g" },
});

describe("hasLargeArray", () => {
  it("finds an array over LARGE_ARRAY elements up to a list body's members, not at its bound", () => {
    expect(hasLargeArray(group(LARGE_ARRAY))).toBe(false);
    expect(hasLargeArray(group(LARGE_ARRAY + 1))).toBe(true);
    expect(hasLargeArray({ Resources: [group(10), group(LARGE_ARRAY + 1)] })).toBe(true);
    expect(hasLargeArray({ a: { b: { c: { d: new Array(LARGE_ARRAY + 1).fill(0) } } } })).toBe(false);
    expect(hasLargeArray({ toJSON: () => 1, members: members(LARGE_ARRAY + 1) })).toBe(false);
    expect(hasLargeArray("text")).toBe(false);
  });
});

describe("jsonPieces", () => {
  it("writes a small value in one piece, JSON.stringify's", () => {
    const value = { id: "u", emails: [{ value: "a@x.io" }], nothing: undefined };
    expect([...jsonPieces(value)]).toEqual([JSON.stringify(value)]);
  });

  it("writes a large members array in chunks of CHUNK_ELEMENTS whose text is JSON.stringify's, byte for byte", () => {
    const value = group(5 * CHUNK_ELEMENTS + 1);
    const pieces = [...jsonPieces(value)];
    expect(pieces.join("")).toBe(JSON.stringify(value));
    // Six chunks of members, in order, each of at most CHUNK_ELEMENTS elements.
    const chunks = pieces
      .filter((piece) => piece.includes('"value":"u-'))
      .map((piece) => JSON.parse(`[${piece.replace(/^,/, "")}]`) as unknown[]);
    expect(chunks.map((chunk) => chunk.length)).toEqual([...new Array<number>(5).fill(CHUNK_ELEMENTS), 1]);
    expect(chunks.flat()).toEqual(value["members"]);
  });

  it("keeps JSON.stringify's rules around large arrays: key order, dropped keys, null elements, toJSON", () => {
    const large = [...members(LARGE_ARRAY), undefined, () => 1, { toJSON: () => "mine" }];
    const value = {
      b: 1,
      "2": "integer keys first",
      skipped: undefined,
      fn: () => 2,
      list: [undefined, { members: large }, { toJSON: () => ({ members: large.length }) }],
      members: large,
      last: { at: new Date(0) },
    };
    expect([...jsonPieces(value)].join("")).toBe(JSON.stringify(value));
    expect([...jsonPieces(large)].join("")).toBe(JSON.stringify(large));
    expect([...jsonPieces({ Resources: [], members: large.slice(0, LARGE_ARRAY + 1) })].join("")).toBe(
      JSON.stringify({ Resources: [], members: large.slice(0, LARGE_ARRAY + 1) }),
    );
  });
});
