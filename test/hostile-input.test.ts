/**
 * Bad input, across every entry point of the protocol core: each hostile value yields a failed
 * Result carrying a 400 ScimError of the RFC 7644 §3.12 type — never an exception, never a change
 * to what the caller passed in.
 */
import { describe, expect, it } from "vitest";
import {
  ScimType,
  applyPatch,
  compileFilter,
  createResourceValidator,
  createSchemaRegistry,
  parsePatchPath,
  specProfile,
  type Result,
  type ScimObject,
} from "../src/core/index.js";

const registry = createSchemaRegistry();
const users = registry.resourceType("User")!;
const groups = registry.resourceType("Group")!;

const deepFreeze = <T>(value: T): T => {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
};

const expectRejected = (result: Result<unknown>, scimTypes: readonly string[]): void => {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.status).toBe(400);
  expect(scimTypes).toContain(result.error.scimType);
  expect(result.error.detail.length).toBeGreaterThan(10);
  expect(result.error.toJSON().status).toBe("400");
};

const nested = (depth: number, open: string, close: string, inner: string): string => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

const hostileFilters: readonly string[] = [
  "",
  "   ",
  nested(50_000, "(", ")", 'userName eq "x"'),
  nested(1_000, "not (", ")", "title pr"),
  `userName eq "${"x".repeat(20_000)}"`,
  "userName eq",
  'userName eq "unterminated',
  'userName eq "bad \\x escape"',
  'userName eq "nul \u0000 raw"',
  "userName eq 1e999",
  "userName eq 12abc",
  'userName lk "x"',
  'emails[type eq "work"',
  'emails[type eq "work"]]',
  'emails[type eq "work"][value pr]',
  'emails[emails[type eq "work"]]',
  '__proto__ eq "x"',
  'constructor.prototype eq "x"',
  'emails[__proto__ eq "x"]',
  "userName pr and",
  "and userName pr",
  "active gt true",
  'meta.lastModified gt "not a date"',
  'userName eq "a" or',
  "((userName pr)",
  "userName pr)",
  'urn:ietf:params:scim:schemas:core:2.0:Nope:userName eq "x"',
  "\u202euserName pr",
];

describe("hostile filters", () => {
  it.each(hostileFilters.map((text) => [text.length > 60 ? `${text.slice(0, 60)}… (${text.length} chars)` : JSON.stringify(text), text]))(
    "rejects %s with invalidFilter",
    (_, text) => {
      expectRejected(compileFilter(users, text), [ScimType.invalidFilter]);
    },
  );
});

describe("hostile PATCH paths", () => {
  it.each([
    "",
    "nope",
    "name.givenName.extra",
    'emails[type eq "work"',
    'emails[type eq "work"].nope',
    'userName[value eq "x"]',
    'name[givenName eq "x"]',
    "__proto__",
    "constructor",
    'emails[type eq "work"].value.extra',
    nested(1_000, "emails[", "]", "type pr"),
    `emails[${nested(5_000, "(", ")", "type pr")}]`,
  ])("rejects %j with invalidPath", (text) => {
    expectRejected(parsePatchPath(users, text), [ScimType.invalidPath, ScimType.invalidFilter]);
  });
});

const storedUser = (): ScimObject => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  id: "u1",
  userName: "bjensen",
  name: { givenName: "Barbara", familyName: "Jensen" },
  emails: [{ value: "bjensen@example.com", type: "work", primary: true }],
  active: true,
});

const op = (operation: unknown) => ({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [operation] });

describe("hostile PATCH bodies", () => {
  const cases: readonly (readonly [string, unknown, readonly string[]])[] = [
    ["a non-object body", "replace", [ScimType.invalidSyntax]],
    ["an array body", [], [ScimType.invalidSyntax]],
    ["no Operations", { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"] }, [ScimType.invalidSyntax, ScimType.invalidValue]],
    ["empty Operations", op(undefined), [ScimType.invalidSyntax, ScimType.invalidValue]],
    ["Operations not an array", { Operations: { op: "add" } }, [ScimType.invalidSyntax, ScimType.invalidValue]],
    ["an unknown op", op({ op: "merge", path: "nickName", value: "x" }), [ScimType.invalidSyntax]],
    ["an op that is not a string", op({ op: 7, path: "nickName", value: "x" }), [ScimType.invalidSyntax]],
    ["a path that is not a string", op({ op: "add", path: ["nickName"], value: "x" }), [ScimType.invalidPath]],
    ["remove without path", op({ op: "remove" }), [ScimType.noTarget]],
    ["add without value", op({ op: "add", path: "nickName" }), [ScimType.invalidValue]],
    ["a readOnly path", op({ op: "replace", path: "id", value: "u2" }), [ScimType.mutability]],
    ["meta.version", op({ op: "replace", path: "meta.version", value: 'W/"9"' }), [ScimType.mutability]],
    ["removing userName", op({ op: "remove", path: "userName" }), [ScimType.mutability]],
    ["a wrong type", op({ op: "replace", path: "active", value: "perhaps" }), [ScimType.invalidValue]],
    ["a number for a string", op({ op: "replace", path: "userName", value: 1e308 }), [ScimType.invalidValue]],
    ["a path-less value that is not an object", op({ op: "add", value: "x" }), [ScimType.invalidValue]],
    [
      "a filter with no match that describes nothing",
      op({ op: "replace", path: 'emails[value co "zzz"].type', value: "home" }),
      [ScimType.noTarget],
    ],
    [
      "two primaries at once",
      op({
        op: "add",
        path: "emails",
        value: [
          { value: "a@x.org", primary: true },
          { value: "b@x.org", primary: true },
        ],
      }),
      [ScimType.invalidValue],
    ],
    [
      "a deeply nested value",
      op({ op: "add", path: "name", value: JSON.parse(nested(5_000, '{"givenName":', "}", '"x"')) as unknown }),
      [ScimType.invalidValue],
    ],
    [
      "a second operation failing after a good first",
      {
        Operations: [
          { op: "replace", path: "nickName", value: "Babs" },
          { op: "replace", path: "nope", value: 1 },
        ],
      },
      [ScimType.invalidPath],
    ],
  ];

  it.each(cases)("rejects %s and leaves the user untouched", (_, body, scimTypes) => {
    const user = deepFreeze(storedUser());
    const frozenBody = deepFreeze(body);
    expectRejected(applyPatch(users, user, frozenBody), scimTypes);
    expect(user).toEqual(storedUser());
  });

  it("ignores prototype-pollution keys in path-less values", () => {
    const body = JSON.parse(
      '{"Operations":[{"op":"add","value":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"nickName":"Babs"}}]}',
    ) as unknown;
    const result = applyPatch(users, storedUser(), body);
    expect(result.ok && result.value.resource["nickName"]).toBe("Babs");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(result.ok && Object.keys(result.value.resource)).not.toContain("__proto__");
  });

  it("answers a member filter it cannot reduce to ids when members are not loaded", () => {
    const group = deepFreeze({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], id: "g1", displayName: "Guides" });
    expectRejected(applyPatch(groups, group, op({ op: "remove", path: 'members[display eq "Babs"]' }), { membersLoaded: false }), [
      ScimType.invalidFilter,
    ]);
  });
});

describe("hostile resource bodies", () => {
  const validator = createResourceValidator(users, specProfile);
  it.each<[string, unknown]>([
    ["null", null],
    ["a string", "bjensen"],
    ["an array", [{ userName: "bjensen" }]],
    ["schemas as a string", { schemas: "urn:ietf:params:scim:schemas:core:2.0:User", userName: "b" }],
    ["every field of the wrong type", { userName: {}, name: "Barbara", emails: "b@example.com", active: "sometimes" }],
    ["a deeply nested name", { userName: "b", name: JSON.parse(nested(5_000, '{"givenName":', "}", '"x"')) as unknown }],
  ])("rejects %s with a 400 naming what is wrong", (_, body) => {
    const frozen = deepFreeze(body);
    expectRejected(validator.prepare(frozen), [ScimType.invalidSyntax, ScimType.invalidValue]);
  });

  it("keeps prototype-pollution keys out of the stored resource", () => {
    const body = JSON.parse(
      '{"userName":"b","name":{"givenName":"B","familyName":"J","__proto__":{"x":1}},"emails":[{"value":"b@example.com","type":"work"}],"__proto__":{"polluted":true}}',
    ) as unknown;
    const result = validator.prepare(body);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect(JSON.stringify(result.value)).not.toContain("polluted");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });
});
