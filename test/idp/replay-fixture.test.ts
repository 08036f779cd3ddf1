/** The replay runner's own rules: containment, placeholders, capture paths, request encoding. */
import { describe, expect, it } from "vitest";
import {
  compatibilityOf,
  encodeRequestPath,
  expectationFor,
  findMismatch,
  findPresent,
  parseReplayFixture,
  readJsonPath,
  statusMatches,
  substitute,
} from "./replay-fixture.js";

describe("findMismatch (expected body containment)", () => {
  it("accepts extra keys and checks nested objects", () => {
    expect(findMismatch({ name: { givenName: "A" } }, { id: "1", name: { givenName: "A", familyName: "B" } })).toBeUndefined();
    expect(findMismatch({ name: { givenName: "A" } }, { name: { givenName: "B" } })).toBe('$.name.givenName: expected "A", got "B"');
  });

  it("reads null as unassigned: absent, null or [] (RFC 7643 §2.5)", () => {
    for (const actual of [{}, { members: null }, { members: [] }]) expect(findMismatch({ members: null }, actual)).toBeUndefined();
    expect(findMismatch({ members: null }, { members: [{ value: "x" }] })).toMatch(/^\$\.members: expected no value/);
  });

  it("matches arrays of the same length element by element, in any order", () => {
    const actual = {
      members: [
        { value: "b", $ref: "…/b" },
        { value: "a", $ref: "…/a" },
      ],
    };
    expect(findMismatch({ members: [{ value: "a" }, { value: "b" }] }, actual)).toBeUndefined();
    expect(findMismatch({ members: [{ value: "a" }] }, actual)).toMatch(/expected 1 element\(s\), got 2/);
    expect(findMismatch({ members: [{ value: "a" }, { value: "a" }] }, actual)).toMatch(/no element contains expected \[1\]/);
    expect(findMismatch({ Resources: [] }, { Resources: [] })).toBeUndefined();
  });

  it("compares other values strictly", () => {
    expect(findMismatch({ active: false }, { active: "False" })).toBe('$.active: expected false, got "False"');
    expect(findMismatch({ totalResults: 0 }, { totalResults: "0" })).toBe('$.totalResults: expected 0, got "0"');
  });
});

describe("placeholders, capture paths and request paths", () => {
  it("substitutes captured values in strings and keys, and refuses unknown names", () => {
    const captured = new Map([["userId", "42"]]);
    expect(substitute({ path: "/Users/{{userId}}", list: ["{{ userId }}"] }, captured)).toEqual({ path: "/Users/42", list: ["42"] });
    expect(() => substitute("/Groups/{{groupId}}", captured)).toThrow("{{groupId}} is used before any step captured it");
  });

  it("reads $.a[0].b paths", () => {
    expect(readJsonPath({ Resources: [{ id: "x" }] }, "$.Resources[0].id")).toBe("x");
    expect(readJsonPath({ id: "y" }, "$.id")).toBe("y");
    expect(readJsonPath({}, "$.missing.id")).toBeUndefined();
    expect(() => readJsonPath({}, "id")).toThrow(/must start with/);
  });

  it("encodes spaces and quotes but leaves what the provider already encoded", () => {
    expect(encodeRequestPath('/Users?filter=userName eq "a@b.c"')).toBe("/Users?filter=userName%20eq%20%22a@b.c%22");
    expect(encodeRequestPath("/Users?filter=userName%20eq%20%22a%40b.c%22&startIndex=1&count=100")).toBe(
      "/Users?filter=userName%20eq%20%22a%40b.c%22&startIndex=1&count=100",
    );
  });

  it("rejects a fixture whose body has no Content-Type, or that carries credentials", () => {
    const fixture = (headers: Record<string, string>) => ({
      scenario: "s",
      sources: [{ title: "t", url: "u" }],
      steps: [{ name: "n", source: "s", request: { method: "POST", path: "/Users", headers, body: {} }, expect: { status: 201 } }],
    });
    expect(() => parseReplayFixture(fixture({}), "f.json")).toThrow(
      "f.json: steps[0].request.headers must give the Content-Type of the body",
    );
    expect(() => parseReplayFixture(fixture({ "Content-Type": "application/scim+json", Authorization: "Bearer x" }), "f.json")).toThrow(
      /must not carry credentials/,
    );
    expect(parseReplayFixture(fixture({ "Content-Type": "application/scim+json" }), "f.json").scenario).toBe("s");
  });
});

describe("compatibility profiles and alternative statuses", () => {
  const fixture = (extra: Record<string, unknown>, status: unknown = 200) => ({
    scenario: "s",
    sources: [{ title: "t", url: "u" }],
    ...extra,
    steps: [{ name: "n", source: "s", request: { method: "GET", path: "/Users" }, expect: { status } }],
  });

  it("runs a fixture under generic alone unless it lists its profiles", () => {
    expect(compatibilityOf(parseReplayFixture(fixture({}), "f.json"))).toEqual(["generic"]);
    expect(compatibilityOf(parseReplayFixture(fixture({ compatibility: ["okta", "generic"] }), "f.json"))).toEqual(["okta", "generic"]);
  });

  it("refuses unknown, repeated or missing profile names, naming the entry", () => {
    expect(() => parseReplayFixture(fixture({ compatibility: ["okta", "auth0"] }), "f.json")).toThrow(
      'f.json: compatibility[1] "auth0" is not a profile; use one of generic, strict, entra, okta, google, onelogin, jumpcloud, ping',
    );
    expect(() => parseReplayFixture(fixture({ compatibility: ["strict", "strict"] }), "f.json")).toThrow(
      'f.json: compatibility[1] "strict" is listed twice',
    );
    expect(() => parseReplayFixture(fixture({ compatibility: [] }), "f.json")).toThrow(/f\.json: compatibility must be a non-empty array/);
    expect(() => parseReplayFixture(fixture({ compatibility: "okta" }), "f.json")).toThrow(
      /f\.json: compatibility must be a non-empty array/,
    );
  });

  it("accepts a status or the statuses the source allows alike, and nothing else", () => {
    expect(parseReplayFixture(fixture({}, [200, 204]), "f.json").steps[0]?.expect.status).toEqual([200, 204]);
    for (const status of [[], "200", [200, "204"], 42, 200.5]) {
      expect(() => parseReplayFixture(fixture({}, status), "f.json")).toThrow(/steps\[0\]\.expect\.status must be an HTTP status/);
    }
    expect(statusMatches(204, 204)).toBe(true);
    expect(statusMatches(204, 200)).toBe(false);
    expect(statusMatches([200, 204], 200)).toBe(true);
    expect(statusMatches([200, 204], 400)).toBe(false);
  });
});

describe("expectations per compatibility profile, and attributes that must be absent", () => {
  const fixture = (step: Record<string, unknown>, compatibility: unknown = ["strict", "generic"]) => ({
    scenario: "s",
    sources: [{ title: "t", url: "u" }],
    compatibility,
    steps: [{ name: "n", source: "s", request: { method: "GET", path: "/Groups" }, expect: { status: 204 }, ...step }],
  });

  it("uses a profile's expectUnder entry under that profile, and expect under the others", () => {
    const parsed = parseReplayFixture(fixture({ expectUnder: { strict: { status: 200, absent: ["$.members"] } } }), "f.json");
    const step = parsed.steps[0];
    if (!step) throw new Error("the fixture has a step");
    expect(expectationFor(step, "strict")).toEqual({ status: 200, absent: ["$.members"] });
    expect(expectationFor(step, "generic")).toEqual({ status: 204 });
  });

  it("refuses an expectUnder that names a profile the fixture does not run under, or every one it does", () => {
    expect(() => parseReplayFixture(fixture({ expectUnder: { okta: { status: 200 } } }), "f.json")).toThrow(
      "f.json: steps[0].expectUnder.okta names a profile the fixture does not run under (strict, generic)",
    );
    expect(() => parseReplayFixture(fixture({ expectUnder: { strict: { status: 200 } } }, ["generic"]), "f.json")).toThrow(
      "f.json: steps[0].expectUnder.strict names a profile the fixture does not run under (generic)",
    );
    expect(() => parseReplayFixture(fixture({ expectUnder: { strict: { status: 200 }, generic: { status: 204 } } }), "f.json")).toThrow(
      /steps\[0\]\.expectUnder names every profile the fixture runs under/,
    );
    expect(() => parseReplayFixture(fixture({ expectUnder: {} }), "f.json")).toThrow(/steps\[0\]\.expectUnder must map/);
    expect(() => parseReplayFixture(fixture({ expectUnder: { strict: { status: "200" } } }), "f.json")).toThrow(
      /steps\[0\]\.expectUnder\.strict\.status must be an HTTP status/,
    );
  });

  it("checks absent as a non-empty list of $ paths", () => {
    for (const absent of [[], "$.members", [1], ["members"]]) {
      expect(() => parseReplayFixture(fixture({ expect: { status: 200, absent } }), "f.json")).toThrow(/steps\[0\]\.expect\.absent/);
    }
  });

  it("finds the first path with a value, null and [] included, since absent means not there at all (RFC 7643 §2.5)", () => {
    expect(findPresent(["$.members"], { id: "g" })).toBeUndefined();
    expect(findPresent(["$.members"], { members: [] })).toBe("$.members");
    expect(findPresent(["$.roles", "$.members"], { members: null })).toBe("$.members");
    expect(findPresent(["$.Resources[0].members"], { Resources: [{ id: "g" }] })).toBeUndefined();
  });
});
