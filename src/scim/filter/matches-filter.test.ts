import { describe, expect, it } from "vitest";
import { ENTERPRISE_URN, USER_URN, sampleUserBody } from "../sample-resources.fixture.js";
import { leafOf, type ResolvedPath } from "../schema/resolved-path.js";
import { createSchemaRegistry } from "../schema/schema-registry.js";
import type { Filter } from "./filter-ast.js";
import { TEST_URN, testUsers } from "./filter-schema.fixture.js";
import { matchesFilter } from "./matches-filter.js";
import { compileFilter } from "./resolve-filter.js";

type Resource = Record<string, unknown>;

function compiled(text: string): Filter {
  const result = compileFilter(testUsers, text);
  if (!result.ok) throw new Error(`expected ${text} to compile: ${result.error.detail}`);
  return result.value;
}

const matches = (text: string, resource: Resource): boolean => matchesFilter(resource, compiled(text));

/** A user holding `attributes` of the filter-test extension under its URN. */
const withTest = (attributes: Resource): Resource => ({ userName: "t", [TEST_URN]: attributes });

describe("matchesFilter: the RFC 7644 §3.4.2.2 examples", () => {
  const users = createSchemaRegistry().resourceType("User")!;
  const people: readonly Resource[] = [
    {
      id: "bjensen",
      schemas: [USER_URN, ENTERPRISE_URN],
      userName: "bjensen",
      name: { familyName: "Jensen", givenName: "Barbara" },
      title: "Tour Guide",
      userType: "Employee",
      emails: [
        { value: "bjensen@example.com", type: "work", primary: true },
        { value: "babs@jensen.org", type: "home" },
      ],
      meta: { resourceType: "User", lastModified: "2011-05-13T04:42:34Z" },
      [ENTERPRISE_URN]: { department: "Tour Operations" },
    },
    {
      id: "jsmith",
      schemas: [USER_URN],
      userName: "JSmith",
      name: { familyName: "O'Malley" },
      userType: "Intern",
      emails: [{ value: "js@example.org", type: "home" }],
      ims: [{ value: "js@foo.com", type: "xmpp" }],
      meta: { resourceType: "User", lastModified: "2011-05-14T00:00:00Z" },
    },
    {
      id: "kwong",
      schemas: [USER_URN],
      userName: "jkwong@corp.net",
      name: { familyName: "o'malley-wong" },
      title: null,
      userType: "Employee",
      emails: [
        { value: "k@corp.net", type: "work" },
        { value: "k@example.com", type: "home" },
      ],
      ims: [{ value: "k@foo.com", type: "aim" }],
      meta: { resourceType: "User", lastModified: "2011-05-13T02:00:00Z" },
    },
    {
      id: "ghost",
      schemas: [USER_URN],
      userName: "ghost",
      title: "",
      // The same instant as bjensen's, written with an offset.
      meta: { resourceType: "User", lastModified: "2011-05-13T06:42:34+02:00" },
    },
  ];

  it.each<[string, readonly string[]]>([
    ['userName eq "bjensen"', ["bjensen"]],
    [`name.familyName co "O'Malley"`, ["jsmith", "kwong"]],
    ['userName sw "J"', ["jsmith", "kwong"]],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"', ["jsmith", "kwong"]],
    ["title pr", ["bjensen"]],
    ['meta.lastModified gt "2011-05-13T04:42:34Z"', ["jsmith"]],
    ['meta.lastModified ge "2011-05-13T04:42:34Z"', ["bjensen", "jsmith", "ghost"]],
    ['meta.lastModified lt "2011-05-13T04:42:34Z"', ["kwong"]],
    ['meta.lastModified le "2011-05-13T04:42:34Z"', ["bjensen", "kwong", "ghost"]],
    ['title pr and userType eq "Employee"', ["bjensen"]],
    ['title pr or userType eq "Intern"', ["bjensen", "jsmith"]],
    ['schemas eq "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"', ["bjensen"]],
    ['userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")', ["bjensen", "kwong"]],
    ['userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")', ["ghost"]],
    ['userType eq "Employee" and (emails.type eq "work")', ["bjensen", "kwong"]],
    ['userType eq "Employee" and emails[type eq "work" and value co "@example.com"]', ["bjensen"]],
    ['emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]', ["bjensen", "jsmith"]],
  ])("%s selects %j", (text, expected) => {
    const result = compileFilter(users, text);
    if (!result.ok) throw new Error(result.error.detail);
    expect(people.filter((person) => matchesFilter(person, result.value)).map((person) => person.id)).toEqual(expected);
  });
});

describe("matchesFilter: strings", () => {
  // `title` is caseExact false (RFC 7643 §4.1.1), the test `badge` caseExact true.
  const guide = { title: "Tour Guide" };
  const badge = withTest({ badge: "AbC" });

  it.each<[string, boolean]>([
    ['title eq "tour guide"', true],
    ['title eq "TOUR GUIDE"', true],
    ['title eq "Tour"', false],
    ['title ne "tour guide"', false],
    ['title ne "Tour"', true],
    ['title co "UR G"', true],
    ['title co "guides"', false],
    ['title sw "TOUR"', true],
    ['title sw "Guide"', false],
    ['title ew "GUIDE"', true],
    ['title ew "Tour"', false],
    ['title gt "TOUR"', true],
    ['title gt "u"', false],
    ['title ge "TOUR GUIDE"', true],
    ['title lt "U"', true],
    ['title lt "tour guide"', false],
    ['title le "tour guide"', true],
    ['title le "TOUR"', false],
    ['title co ""', true],
  ])("case-insensitive: %s is %s", (text, expected) => {
    expect(matches(text, guide)).toBe(expected);
  });

  it.each<[string, boolean]>([
    ['badge eq "AbC"', true],
    ['badge eq "abc"', false],
    ['badge ne "abc"', true],
    ['badge ne "AbC"', false],
    ['badge co "bC"', true],
    ['badge co "bc"', false],
    ['badge sw "Ab"', true],
    ['badge sw "ab"', false],
    ['badge ew "bC"', true],
    ['badge ew "BC"', false],
    // Case-exact ordering is code-unit order: "A" (65) sorts before "a" (97).
    ['badge lt "a"', true],
    ['badge gt "a"', false],
    ['badge ge "AbC"', true],
    ['badge le "AbB"', false],
  ])("case-exact: %s is %s", (text, expected) => {
    expect(matches(text, badge)).toBe(expected);
  });

  it("compares userName case-insensitively and id, externalId case-exactly", () => {
    const user = { id: "Abc-1", externalId: "Ext-9", userName: "BJensen" };
    expect(matches('userName eq "bjensen"', user)).toBe(true);
    expect(matches('id eq "Abc-1"', user)).toBe(true);
    expect(matches('id eq "abc-1"', user)).toBe(false);
    expect(matches('externalId eq "EXT-9"', user)).toBe(false);
    expect(matches('externalId sw "Ext"', user)).toBe(true);
  });

  it("compares references by their caseExact too", () => {
    expect(matches('homepage eq "HTTPS://Example.com/"', withTest({ homepage: "https://example.com/" }))).toBe(true);
    expect(matches('homepage ew "/"', withTest({ homepage: "https://example.com/" }))).toBe(true);
    const manager = { [ENTERPRISE_URN]: { manager: { $ref: "https://x/Users/AB" } } };
    expect(matches(`${ENTERPRISE_URN}:manager.$ref eq "https://x/Users/AB"`, manager)).toBe(true);
    expect(matches(`${ENTERPRISE_URN}:manager.$ref eq "https://x/users/ab"`, manager)).toBe(false);
  });

  it("compares binary values exactly", () => {
    const user = withTest({ fingerprint: "QUJD" });
    expect(matches('fingerprint eq "QUJD"', user)).toBe(true);
    expect(matches('fingerprint eq "qujd"', user)).toBe(false);
    expect(matches('fingerprint ne "qujd"', user)).toBe(true);
  });

  it("decodes escapes before comparing", () => {
    expect(matches('title eq "caf\\u00e9 \\"bar\\""', { title: 'Café "Bar"' })).toBe(true);
  });
});

describe("matchesFilter: numbers", () => {
  const user = withTest({ level: 5, score: 3.75 });

  it.each<[string, boolean]>([
    ["level eq 5", true],
    ["level eq 5.0", true],
    ["level eq 4", false],
    ["level ne 5", false],
    ["level ne 4", true],
    ["level gt 4", true],
    ["level gt 5", false],
    ["level gt 4.5", true],
    ["level ge 5", true],
    ["level ge 6", false],
    ["level lt 6", true],
    ["level lt 5", false],
    ["level le 5", true],
    ["level le 4", false],
    ["level gt -1e3", true],
    ["score eq 3.75", true],
    ["score ne 3", true],
    ["score gt 3.7", true],
    ["score lt 3.8", true],
    ["score ge 3.75", true],
    ["score le 3.74", false],
    ["score lt 37.5e-1", false],
  ])("%s is %s", (text, expected) => {
    expect(matches(text, user)).toBe(expected);
  });

  it("compares numerically, not as text", () => {
    expect(matches("level gt 10", withTest({ level: 9 }))).toBe(false);
    expect(matches("level lt 10", withTest({ level: 9 }))).toBe(true);
  });

  it("treats 0 as a value", () => {
    expect(matches("level eq 0", withTest({ level: 0 }))).toBe(true);
    expect(matches("level pr", withTest({ level: 0 }))).toBe(true);
  });
});

describe("matchesFilter: booleans", () => {
  it.each<[string, Resource, boolean]>([
    ["active eq true", { active: true }, true],
    ["active eq false", { active: true }, false],
    ["active ne false", { active: true }, true],
    ["active eq false", { active: false }, true],
    ["active ne true", { active: false }, true],
    ['active eq "True"', { active: true }, true],
    ['active eq "FALSE"', { active: false }, true],
    ["active eq false", {}, false],
    ["active ne true", {}, true],
    ["verified eq true", withTest({ verified: true }), true],
    ["emails.primary eq true", { emails: [{ value: "a" }, { value: "b", primary: true }] }, true],
    ["emails.primary eq true", { emails: [{ value: "a", primary: false }] }, false],
  ])("%s on %j is %s", (text, resource, expected) => {
    expect(matches(text, resource)).toBe(expected);
  });

  it("does not read stored strings as booleans: canonical resources hold booleans", () => {
    expect(matches("active eq true", { active: "true" })).toBe(false);
  });
});

describe("matchesFilter: dateTimes compare as instants (RFC 7644 §3.4.2.2)", () => {
  const user = withTest({ hiredAt: "2020-01-01T00:00:00Z" });

  it.each<[string, boolean]>([
    ['hiredAt eq "2020-01-01T01:00:00+01:00"', true],
    ['hiredAt eq "2020-01-01T00:00:00.000Z"', true],
    ['hiredAt ne "2020-01-01T00:00:00Z"', false],
    ['hiredAt ne "2020-01-01T00:00:01Z"', true],
    ['hiredAt gt "2019-12-31T23:59:59Z"', true],
    ['hiredAt gt "2020-01-01T00:00:00Z"', false],
    ['hiredAt ge "2019-12-31T19:00:00-05:00"', true],
    ['hiredAt lt "2020-01-01T00:00:00.001Z"', true],
    ['hiredAt lt "2020-01-01T00:00:00Z"', false],
    ['hiredAt le "2019-12-31T23:59:59.999Z"', false],
  ])("%s is %s", (text, expected) => {
    expect(matches(text, user)).toBe(expected);
  });

  it("treats 04:42:34Z and 06:42:34+02:00 as the same instant", () => {
    const stored = { meta: { lastModified: "2011-05-13T06:42:34+02:00" } };
    expect(matches('meta.lastModified eq "2011-05-13T04:42:34Z"', stored)).toBe(true);
    expect(matches('meta.lastModified ge "2011-05-13T04:42:34Z"', stored)).toBe(true);
    expect(matches('meta.lastModified gt "2011-05-13T04:42:34Z"', stored)).toBe(false);
  });

  it("does not compare the text, which would order offsets wrongly", () => {
    // As text "…T05:00…" sorts after "…T04:00…", but 05:00+02:00 is 03:00Z, an earlier instant.
    const stored = { meta: { lastModified: "2011-05-13T05:00:00+02:00" } };
    expect(matches('meta.lastModified gt "2011-05-13T04:00:00Z"', stored)).toBe(false);
    expect(matches('meta.lastModified lt "2011-05-13T04:00:00Z"', stored)).toBe(true);
  });

  it("never matches a stored value that is not a dateTime", () => {
    const stored = { meta: { lastModified: "last tuesday" } };
    expect(matches('meta.lastModified lt "2100-01-01T00:00:00Z"', stored)).toBe(false);
    expect(matches('meta.lastModified gt "1900-01-01T00:00:00Z"', stored)).toBe(false);
  });

  it("compares dateTime sub-attributes of multi-valued attributes", () => {
    const user = withTest({ devices: [{ lastSeen: "2024-01-01T00:00:00Z" }, { lastSeen: "2025-06-01T00:00:00Z" }] });
    expect(matches('devices.lastSeen gt "2025-01-01T00:00:00Z"', user)).toBe(true);
    expect(matches('devices.lastSeen lt "2023-01-01T00:00:00Z"', user)).toBe(false);
  });
});

describe("matchesFilter: multi-valued attributes match when any value matches (RFC 7644 §3.4.2.2)", () => {
  const user: Resource = {
    emails: [
      { value: "Work@A.com", type: "work" },
      { value: "home@b.org", type: "home" },
    ],
    [TEST_URN]: { tags: ["Alpha", "beta"], codes: ["X1", "y2"] },
  };

  it.each<[string, boolean]>([
    ['emails.value co "a.com"', true],
    ['emails.value co "b.org"', true],
    ['emails.value co "c.net"', false],
    ['emails.type eq "work"', true],
    ['emails.type eq "other"', false],
    ['emails.value sw "HOME"', true],
    ['emails.value ew ".ORG"', true],
    ['emails co "b.org"', true],
    ['emails eq "work@a.com"', true],
    ['tags eq "alpha"', true],
    ['tags co "ET"', true],
    ['tags gt "b"', true],
    ['tags lt "a"', false],
    ['codes eq "x1"', false],
    ['codes eq "X1"', true],
    ['codes sw "y"', true],
  ])("%s is %s", (text, expected) => {
    expect(matches(text, user)).toBe(expected);
  });

  it("reads a lone value where an array belongs as an array of one", () => {
    expect(matches('emails.value eq "x@y.z"', { emails: { value: "x@y.z", type: "work" } })).toBe(true);
    expect(matches('tags eq "solo"', withTest({ tags: "solo" }))).toBe(true);
  });
});

describe("matchesFilter: ne, null and absent attributes", () => {
  // `ne` is the negation of `eq`: true when no value equals, and so true for an absent attribute.
  const both = { emails: [{ type: "work" }, { type: "home" }] };

  it.each<[string, Resource, boolean]>([
    ['emails.type ne "work"', both, false],
    ['emails.type ne "work"', { emails: [{ type: "home" }] }, true],
    ['emails.type ne "work"', {}, true],
    ['emails.type ne "work"', { emails: [] }, true],
    ['title ne "x"', {}, true],
    ['title ne "x"', { title: null }, true],
    ['title eq "x"', {}, false],
    ["title eq null", {}, true],
    ["title eq null", { title: null }, true],
    ["title eq null", { title: "" }, true],
    ["title eq null", { title: "x" }, false],
    ["title ne null", { title: "x" }, true],
    ["title ne null", {}, false],
    ["emails.value eq null", { emails: [{ type: "work" }] }, true],
    ["emails.value eq null", { emails: [{ type: "work" }, { value: "a" }] }, false],
    ["name eq null", {}, true],
    ["name eq null", { name: {} }, true],
    ["name eq null", { name: { givenName: "B" } }, false],
    ["name ne null", { name: { givenName: "B" } }, true],
    ["active eq null", { active: false }, false],
    ["level eq null", withTest({ level: 0 }), false],
  ])("%s on %j is %s", (text, resource, expected) => {
    expect(matches(text, resource)).toBe(expected);
  });

  it("keeps not (a eq x) and a ne x equivalent", () => {
    for (const resource of [both, { emails: [{ type: "home" }] }, {}, { emails: "junk" }]) {
      expect(matches('emails.type ne "work"', resource)).toBe(matches('not (emails.type eq "work")', resource));
    }
  });

  it("matches no ordering or substring on an absent attribute", () => {
    for (const op of ["co", "sw", "ew", "gt", "ge", "lt", "le"]) {
      expect(matches(`title ${op} ""`, {})).toBe(false);
    }
  });
});

describe("matchesFilter: pr (RFC 7644 §3.4.2.2, RFC 7643 §2.5)", () => {
  it.each<[string, Resource, boolean]>([
    ["title pr", {}, false],
    ["title pr", { title: null }, false],
    ["title pr", { title: "" }, false],
    ["title pr", { title: " " }, true],
    ["title pr", { title: "x" }, true],
    ["active pr", { active: false }, true],
    ["emails pr", { emails: [] }, false],
    ["emails pr", { emails: [null] }, false],
    ["emails pr", { emails: [{}] }, false],
    ["emails pr", { emails: [{ value: "", type: null }] }, false],
    ["emails pr", { emails: [{ value: null }, { type: "work" }] }, true],
    ["emails.value pr", { emails: [{ type: "work" }] }, false],
    ["emails.value pr", { emails: [{ type: "work" }, { value: "a@b.c" }] }, true],
    ["name pr", { name: {} }, false],
    ["name pr", { name: { givenName: "" } }, false],
    ["name pr", { name: { givenName: "B" } }, true],
    ["name.givenName pr", { name: { familyName: "J" } }, false],
    ["meta.lastModified pr", { meta: { lastModified: "2011-05-13T04:42:34Z" } }, true],
    [`${ENTERPRISE_URN}:department pr`, {}, false],
    [`${ENTERPRISE_URN}:department pr`, { [ENTERPRISE_URN]: { department: "Sales" } }, true],
    ["manager pr", { [ENTERPRISE_URN]: { manager: {} } }, false],
    ["manager pr", { [ENTERPRISE_URN]: { manager: { value: "m1" } } }, true],
    ["tags pr", withTest({ tags: ["", null] }), false],
    ["tags pr", withTest({ tags: ["", "x"] }), true],
  ])("%s on %j is %s", (text, resource, expected) => {
    expect(matches(text, resource)).toBe(expected);
  });
});

describe("matchesFilter: value filters match one element at a time (RFC 7644 §3.4.2.2)", () => {
  const user: Resource = {
    emails: [{ value: "w@a.com", type: "work", primary: true }, { value: "h@b.com", type: "home" }, { value: "o@c.com" }],
    name: { givenName: "Barbara", familyName: "Jensen" },
    [ENTERPRISE_URN]: { manager: { value: "26118915", displayName: "John Smith" } },
    [TEST_URN]: {
      devices: [
        { serial: "SN-1", kind: "phone", trusted: false },
        { serial: "SN-2", kind: "laptop", trusted: true },
      ],
    },
  };

  it.each<[string, boolean]>([
    ['emails[type eq "work" and value co "a.com"]', true],
    // The work address is at a.com and the home address at b.com: no single element satisfies both.
    ['emails[type eq "work" and value co "b.com"]', false],
    // Written as two independent conditions, different elements may satisfy each.
    ['emails[type eq "work"] and emails[value co "b.com"]', true],
    ['emails[type eq "work"] and emails.value co "b.com"', true],
    ['emails[type eq "work"].value co "b.com"', false],
    ['emails[type eq "work"].value co "a.com"', true],
    ['emails[type eq "work" or value co "b.com"]', true],
    ['emails[type eq "work" and primary eq true]', true],
    ['emails[type eq "home" and primary eq true]', false],
    ['emails[not (type eq "work")]', true],
    ['emails[type ne "work" and type ne "home"]', true],
    ['emails[type pr and not (value co "a.com")]', true],
    ['emails[type pr and not (value co ".com")]', false],
    ['emails[type eq "WORK"]', true],
    ['name[givenName eq "barbara" and familyName eq "jensen"]', true],
    ['name[givenName eq "barbara" and familyName eq "smith"]', false],
    [`${ENTERPRISE_URN}:manager[value eq "26118915"]`, true],
    ['manager[displayName co "smith"]', true],
    ['manager[displayName co "smith" and value eq "other"]', false],
    ['devices[kind eq "phone" and trusted eq true]', false],
    ['devices[kind eq "laptop" and trusted eq true]', true],
    ['devices[serial eq "sn-2"]', false],
    ['devices[serial eq "SN-2"]', true],
  ])("%s is %s", (text, expected) => {
    expect(matches(text, user)).toBe(expected);
  });

  it("needs at least one element: not inside brackets is not a negation of the whole", () => {
    expect(matches('emails[not (type eq "work")]', { emails: [{ type: "work" }] })).toBe(false);
    expect(matches('emails[not (type eq "work")]', {})).toBe(false);
    expect(matches('not (emails[type eq "work"])', {})).toBe(true);
    expect(matches('emails[type ne "work"]', { emails: [{ value: "untyped" }] })).toBe(true);
  });

  it("skips elements that are not objects", () => {
    expect(matches('emails[type eq "work"]', { emails: ["work", null, 3, [{ type: "work" }]] })).toBe(false);
    expect(matches('emails[type eq "work"]', { emails: ["work", { type: "work" }] })).toBe(true);
  });
});

describe("matchesFilter: enterprise extension", () => {
  const user = sampleUserBody();

  it.each<[string, boolean]>([
    [`${ENTERPRISE_URN}:department eq "Tour Operations"`, true],
    [`${ENTERPRISE_URN}:department eq "tour operations"`, true],
    [`${ENTERPRISE_URN.toUpperCase()}:DEPARTMENT eq "Tour Operations"`, true],
    ['department eq "Tour Operations"', true],
    ['department eq "Sales"', false],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber eq "701984"', true],
    [`${ENTERPRISE_URN}:employeeNumber eq "42"`, false],
    [`${ENTERPRISE_URN}:manager.value eq "26118915-6090-4610-87e4-49d8ca9f808d"`, true],
    ['manager.value sw "26118915"', true],
    ['manager eq "26118915-6090-4610-87e4-49d8ca9f808d"', true],
    ['manager.displayName eq "john smith"', true],
    ['costCenter eq "4130" and division co "park"', true],
  ])("%s is %s", (text, expected) => {
    expect(matches(text, user)).toBe(expected);
  });

  it("matches the spec's employeeNumber alias", () => {
    const sales = { [ENTERPRISE_URN]: { employeeNumber: "42", department: "Sales" } };
    expect(matches('urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber eq "42"', sales)).toBe(true);
    expect(matches(`${ENTERPRISE_URN}:department eq "Sales"`, sales)).toBe(true);
  });

  it("reads extension attributes only under the extension URN", () => {
    expect(matches('department eq "Sales"', { department: "Sales" })).toBe(false);
    expect(matches('department eq "Sales"', { [ENTERPRISE_URN]: "Sales" })).toBe(false);
  });
});

describe("matchesFilter: logic", () => {
  const user = { title: "Guide", userType: "Intern", active: true };

  it.each<[string, boolean]>([
    ['title pr and userType eq "Intern"', true],
    ['title pr and userType eq "Employee"', false],
    ['title eq "x" or userType eq "Intern"', true],
    ['title eq "x" or userType eq "y"', false],
    ["not (title pr)", false],
    ["not (not (title pr))", true],
    // and binds tighter than or: a or (b and c)
    ['title pr or userType eq "x" and active eq false', true],
    ['(title pr or userType eq "x") and active eq false', false],
    ['userType eq "x" and active eq false or title pr', true],
    ['userType eq "x" and (active eq false or title pr)', false],
    ['not (userType eq "Intern") or not (active eq true)', false],
  ])("%s is %s", (text, expected) => {
    expect(matches(text, user)).toBe(expected);
  });
});

describe("matchesFilter: malformed resources never throw", () => {
  const filters = [
    'userName eq "x"',
    'userName co "x"',
    'userName gt "a"',
    "title pr",
    "title eq null",
    'name.givenName sw "B"',
    "name pr",
    'emails.value co "x"',
    'emails co "x"',
    'emails.type ne "work"',
    "emails pr",
    'emails[type eq "work" and value co "x"]',
    'name[givenName eq "x"]',
    "active eq true",
    'meta.lastModified gt "2011-05-13T04:42:34Z"',
    'department eq "x"',
    'manager.value eq "x"',
    'manager[value eq "x"]',
    "level gt 3",
    "score le 2",
    'hiredAt lt "2011-05-13T04:42:34Z"',
    'tags eq "x"',
    'devices[kind eq "x"]',
    'schemas eq "x"',
  ];
  let deep: unknown = [];
  for (let i = 0; i < 100_000; i += 1) deep = [deep];
  let deepObject: unknown = {};
  for (let i = 0; i < 100_000; i += 1) deepObject = { value: deepObject };
  const resources: readonly unknown[] = [
    {},
    { userName: 42, title: true, name: "Barbara", emails: "a@b.c", active: "yes", meta: [] },
    { userName: ["x"], title: { a: 1 }, name: [{ givenName: "B" }], emails: [null, 1, "s", [[]], { value: 7, type: {} }] },
    { emails: { 0: { type: "work" } }, meta: { lastModified: 1305261754 }, schemas: "x" },
    { [ENTERPRISE_URN]: "Sales", [TEST_URN]: [1, 2] },
    { [ENTERPRISE_URN]: { department: ["x"], manager: "x" }, [TEST_URN]: { level: "3", score: null, hiredAt: 0, tags: {}, devices: "x" } },
    { [TEST_URN]: { level: Number.NaN, score: Infinity, hiredAt: ["2011-05-13T04:42:34Z"], devices: [[{ kind: "x" }]] } },
    { title: deep, emails: deep, name: deepObject, [ENTERPRISE_URN]: { manager: deepObject } },
    JSON.parse('{"__proto__": {"userName": "x"}, "constructor": {"name": "x"}}'),
    Object.create(null),
    [],
    null,
    "user",
  ];

  it("returns a boolean for every filter on every shape", () => {
    resources.forEach((resource, index) => {
      for (const text of filters) {
        const filter = compiled(text);
        const run = () => matchesFilter(resource as Resource, filter);
        expect(run, `${text} on resources[${index}]`).not.toThrow();
        expect(typeof run()).toBe("boolean");
      }
    });
  });

  it("does not match values of the wrong JSON type", () => {
    expect(matches('userName eq "42"', { userName: 42 })).toBe(false);
    expect(matches("level eq 3", withTest({ level: "3" }))).toBe(false);
    expect(matches('emails.value eq "7"', { emails: [{ value: 7 }] })).toBe(false);
    expect(matches('userName eq "x"', JSON.parse('{"__proto__": {"userName": "x"}}') as Resource)).toBe(false);
    expect(matches('name.givenName eq "x"', { name: Object.assign(Object.create({ givenName: "x" }) as object, {}) })).toBe(false);
  });

  it("evaluates a hand-built filter whose leaf it cannot compare as no match", () => {
    const name = compiled("name pr");
    if (name.kind !== "present") throw new Error("expected present");
    const path: ResolvedPath = name.path;
    expect(leafOf(path).type).toBe("complex");
    expect(matchesFilter({ name: { givenName: "x" } }, { kind: "compare", path, op: "eq", value: "x" })).toBe(false);
    expect(matchesFilter({ name: { givenName: "x" } }, { kind: "compare", path, op: "gt", value: "a" })).toBe(false);
  });
});
