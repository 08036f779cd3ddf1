/**
 * Hand-picked filters, one per corner of RFC 7644 §3.4.2.2 and of `matchesFilter`, run against
 * real SQLite and PostgreSQL databases: every one must select exactly the resources
 * `matchesFilter(resourceView(…))` selects, and the expected ids pin the intent so that the
 * reference itself is checked too.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { TEST_URN, testUsers } from "../../../scim/filter/filter-schema.fixture.js";
import { createSchemaRegistry } from "../../../scim/schema/schema-registry.js";
import type { StoredResource } from "../../resource-store.js";
import { compileFilterSql } from "./compile-filter-sql.js";
import { canonicalAttributes, referenceIds, resolvedFilter, rowsOf, type FixtureResource } from "./filter-agreement.fixture.js";
import { describeEachDatabase, insertRows, selectIds, type FilterTestDatabase } from "./filter-test-database.fixture.js";

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const groups = createSchemaRegistry().resourceType("Group")!;

function user(id: string, created: string, version: number, body: Readonly<Record<string, unknown>>): FixtureResource {
  const resource: StoredResource = {
    id,
    version: String(version),
    created,
    lastModified: created,
    attributes: canonicalAttributes(testUsers, body),
  };
  return { resource };
}

const users: readonly FixtureResource[] = [
  user("u1", "2011-05-13T04:42:34.000Z", 3, {
    userName: "bjensen",
    externalId: "701984",
    name: { familyName: "Jensen", givenName: "Barbara" },
    title: "Tour Guide",
    userType: "Employee",
    active: true,
    emails: [
      { value: "bjensen@example.com", type: "work", primary: true },
      { value: "babs@jensen.org", type: "home" },
    ],
    [ENTERPRISE]: { department: "Tour Operations" },
    [TEST_URN]: {
      level: 3,
      score: 2.5,
      badge: "AbC",
      verified: true,
      hiredAt: "2011-05-13T04:42:34Z",
      fingerprint: "QUJD",
      homepage: "https://Example.com/a",
      tags: ["Red", "blue"],
      codes: ["X1", "y2"],
      devices: [{ serial: "S-1", kind: "Phone", lastSeen: "2020-01-01T00:00:00Z", trusted: true }],
    },
  }),
  user("u2", "2011-05-14T00:00:00.000Z", 12, {
    userName: "JSmith",
    name: { familyName: "O'Malley" },
    userType: "Intern",
    active: false,
    emails: [{ value: "js@example.org", type: "home" }],
    ims: [{ value: "js@foo.com", type: "xmpp" }],
    [TEST_URN]: {
      level: -1,
      score: 0.1,
      badge: "abc",
      tags: ["RED"],
      devices: [{ serial: "s-1", kind: "tablet", trusted: false }, { kind: "Phone" }],
    },
  }),
  user("u3", "2011-05-13T02:00:00.000Z", 1, {
    userName: "jkwong@corp.net",
    name: { familyName: "o'malley-wong" },
    title: "",
    userType: "Employee",
    emails: [
      { value: "k@corp.net", type: "work" },
      { value: "k@example.com", type: "home", primary: true },
    ],
    ims: [{ value: "k@foo.com", type: "aim" }],
    [ENTERPRISE]: { department: "", manager: { value: "u1" } },
    // The same instant as u1's hiredAt, written with an offset.
    [TEST_URN]: { hiredAt: "2011-05-13T06:42:34+02:00", codes: ["x1"], score: 1e21 },
  }),
  user("u4", "2011-05-13T04:42:34.000Z", 2, {
    userName: "ghost",
    externalId: "",
    name: { givenName: "" },
    emails: [{ type: "work" }],
  }),
  user("u5", "2012-01-01T00:00:00.000Z", 7, {
    userName: "Élodie",
    displayName: "ÄRGER",
    name: { givenName: "ÉLODIE", familyName: "ΣΊΣΥΦΟΣ" },
    title: "50% off_sale\\",
    emails: [{ value: "É@EXAMPLE.COM", type: "Work" }],
    [TEST_URN]: { tags: ["ä"], badge: "[a*b?]" },
  }),
  user("U6", "2013-01-01T00:00:00.000Z", 1, { userName: "'); drop table scimkit_resources; --", active: true }),
];

const filters: readonly (readonly [string, readonly string[]])[] = [
  // RFC 7644 §3.4.2.2 examples.
  ['userName eq "bjensen"', ["u1"]],
  [`name.familyName co "O'Malley"`, ["u2", "u3"]],
  ['userName sw "J"', ["u2", "u3"]],
  ['urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"', ["u2", "u3"]],
  ["title pr", ["u1", "u5"]],
  ['meta.lastModified gt "2011-05-13T04:42:34Z"', ["U6", "u2", "u5"]],
  ['meta.lastModified ge "2011-05-13T04:42:34Z"', ["U6", "u1", "u2", "u4", "u5"]],
  ['meta.lastModified lt "2011-05-13T04:42:34Z"', ["u3"]],
  ['meta.lastModified le "2011-05-13T06:42:34+02:00"', ["u1", "u3", "u4"]],
  ['title pr and userType eq "Employee"', ["u1"]],
  ['title pr or userType eq "Intern"', ["u1", "u2", "u5"]],
  ['userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")', ["u1", "u3"]],
  ['userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")', ["U6", "u4"]],
  ['userType eq "Employee" and (emails.type eq "work")', ["u1", "u3"]],
  ['userType eq "Employee" and emails[type eq "work" and value co "@example.com"]', ["u1"]],
  ['emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]', ["u1", "u2", "u5"]],
  // One element must satisfy the whole bracket: u3's work address is not its example.com one.
  ['emails[type eq "work" and value ew "example.com"]', ["u1", "u5"]],
  ['emails[type eq "home"] and emails[primary eq true]', ["u1", "u3"]],
  ['emails[type eq "home" and primary eq true]', ["u3"]],
  // u5's "Work" e-mail is a work e-mail: type is caseExact false.
  ['emails[not (type eq "work")]', ["u1", "u2", "u3"]],
  ["emails[value eq null]", ["u4"]],
  ['emails[type eq "work"].value ew "corp.net"', ["u3"]],
  // Case: userName, title, emails are caseExact false; externalId, id and badge are caseExact.
  ['userName eq "JSMITH"', ["u2"]],
  ['userName eq "élodie"', ["u5"]],
  ['userName ne "jsmith"', ["U6", "u1", "u3", "u4", "u5"]],
  ['displayName eq "ärger"', ["u5"]],
  ['name.familyName eq "σίσυφος"', ["u5"]],
  ['name.givenName sw "élo"', ["u5"]],
  ['emails.value eq "é@example.com"', ["u5"]],
  [`${TEST_URN}:badge eq "abc"`, ["u2"]],
  [`${TEST_URN}:badge ne "abc"`, ["U6", "u1", "u3", "u4", "u5"]],
  [`${TEST_URN}:badge co "bC"`, ["u1"]],
  [`${TEST_URN}:badge lt "a"`, ["u1", "u5"]],
  ['externalId eq "701984"', ["u1"]],
  ['externalId ne "701984"', ["U6", "u2", "u3", "u4", "u5"]],
  ['externalId sw "70"', ["u1"]],
  ["externalId pr", ["u1"]],
  ["externalId eq null", ["U6", "u2", "u3", "u4", "u5"]],
  ['id eq "u1"', ["u1"]],
  ['id eq "U1"', []],
  ['id gt "u"', ["u1", "u2", "u3", "u4", "u5"]],
  ['id lt "u"', ["U6"]],
  // Values are parameters, and pattern characters are literal.
  [`userName eq "'); drop table scimkit_resources; --"`, ["U6"]],
  [`userName co "'); drop"`, ["U6"]],
  ['title co "50%"', ["u5"]],
  ['title co "%"', ["u5"]],
  ['title co "_"', ["u5"]],
  ['title sw "50% OFF"', ["u5"]],
  ['title ew "sale\\\\"', ["u5"]],
  ['title co "0_"', []],
  ['title co "%o"', []],
  [`${TEST_URN}:badge co "[a*"`, ["u5"]],
  [`${TEST_URN}:badge eq "[a*b?]"`, ["u5"]],
  [`${TEST_URN}:badge co "a*b?"`, ["u5"]],
  [`${TEST_URN}:badge sw "["`, ["u5"]],
  [`${TEST_URN}:badge ew "?]"`, ["u5"]],
  [`${TEST_URN}:badge co "a?b"`, []],
  [`${TEST_URN}:badge co "*"`, ["u5"]],
  // Presence: null, "", [] and empty objects are no value.
  ["title eq null", ["U6", "u2", "u3", "u4"]],
  ["title ne null", ["u1", "u5"]],
  ["not (title pr)", ["U6", "u2", "u3", "u4"]],
  ["name pr", ["u1", "u2", "u3", "u5"]],
  ["name eq null", ["U6", "u4"]],
  ["emails pr", ["u1", "u2", "u3", "u4", "u5"]],
  ["emails.value pr", ["u1", "u2", "u3", "u5"]],
  ["emails eq null", ["U6"]],
  ["ims pr", ["u2", "u3"]],
  // u4's name holds only an empty givenName: an object, with no givenName value.
  ["name[givenName eq null]", ["u2", "u3", "u4"]],
  [`name[familyName sw "o'"]`, ["u2", "u3"]],
  [`${ENTERPRISE}:department pr`, ["u1"]],
  ['department eq "tour operations"', ["u1"]],
  ['manager.value eq "U1"', ["u3"]],
  [`${ENTERPRISE}:manager eq "u1"`, ["u3"]],
  ["manager pr", ["u3"]],
  // Booleans, including Entra's "True"/"False" strings.
  ["active eq true", ["U6", "u1"]],
  ['active eq "False"', ["u2"]],
  ["active ne true", ["u2", "u3", "u4", "u5"]],
  ["active pr", ["U6", "u1", "u2"]],
  [`${TEST_URN}:verified eq true`, ["u1"]],
  // Numbers.
  [`${TEST_URN}:level gt 0`, ["u1"]],
  [`${TEST_URN}:level le 3`, ["u1", "u2"]],
  [`${TEST_URN}:level eq -1`, ["u2"]],
  [`${TEST_URN}:level ne 3`, ["U6", "u2", "u3", "u4", "u5"]],
  [`${TEST_URN}:score ge 0.1`, ["u1", "u2", "u3"]],
  [`${TEST_URN}:score lt 2.5`, ["u2"]],
  [`${TEST_URN}:score gt 1e20`, ["u3"]],
  [`${TEST_URN}:score eq 1e21`, ["u3"]],
  // dateTimes compare as instants.
  [`${TEST_URN}:hiredAt eq "2011-05-13T04:42:34.000Z"`, ["u1", "u3"]],
  [`${TEST_URN}:hiredAt eq "2011-05-13T05:42:34+01:00"`, ["u1", "u3"]],
  [`${TEST_URN}:hiredAt gt "2011-05-13T04:42:33Z"`, ["u1", "u3"]],
  [`${TEST_URN}:hiredAt lt "2011-05-13T04:42:34Z"`, []],
  ['meta.created eq "2011-05-13T04:42:34Z"', ["u1", "u4"]],
  // Binary is case-exact; references follow their definition.
  [`${TEST_URN}:fingerprint eq "QUJD"`, ["u1"]],
  [`${TEST_URN}:fingerprint eq "qujd"`, []],
  [`${TEST_URN}:homepage co "example.COM"`, ["u1"]],
  // Multi-valued simple attributes: any value.
  [`${TEST_URN}:tags eq "red"`, ["u1", "u2"]],
  [`${TEST_URN}:tags co "E"`, ["u1", "u2"]],
  [`${TEST_URN}:tags eq "Ä"`, ["u5"]],
  [`${TEST_URN}:tags ne "blue"`, ["U6", "u2", "u3", "u4", "u5"]],
  [`${TEST_URN}:codes eq "x1"`, ["u3"]],
  [`${TEST_URN}:codes gt "x"`, ["u1", "u3"]],
  // A complex attribute without `value`.
  [`${TEST_URN}:devices[serial eq "s-1" and trusted eq false]`, ["u2"]],
  [`${TEST_URN}:devices[kind eq "phone" and not (trusted pr)]`, ["u2"]],
  [`${TEST_URN}:devices[kind eq "phone" and trusted eq true]`, ["u1"]],
  [`${TEST_URN}:devices.lastSeen lt "2021-01-01T00:00:00Z"`, ["u1"]],
  [`${TEST_URN}:devices.trusted eq false`, ["u2"]],
  [`${TEST_URN}:devices pr`, ["u1", "u2"]],
  [`${TEST_URN}:devices eq null`, ["U6", "u3", "u4", "u5"]],
  // meta and its sub-attributes.
  ["meta pr", ["U6", "u1", "u2", "u3", "u4", "u5"]],
  ["meta eq null", []],
  ["meta.location pr", []],
  ['meta.resourceType eq "User"', ["U6", "u1", "u2", "u3", "u4", "u5"]],
  ['meta.resourceType eq "user"', []],
  ['meta.version eq "W/\\"3\\""', ["u1"]],
  // Entity tags are strings: W/"12" sorts before W/"2".
  ['meta.version gt "W/\\"2\\""', ["u1", "u5"]],
  ['meta[resourceType eq "User" and created gt "2011-05-13T04:42:34Z"]', ["U6", "u2", "u5"]],
  // not over absent attributes, and deep nesting.
  ['not (nickName eq "x")', ["U6", "u1", "u2", "u3", "u4", "u5"]],
  ['not (not (userName eq "ghost"))', ["u4"]],
  ['not (emails.type eq "home" or active eq false) and not (name eq null)', ["u5"]],
];

describeEachDatabase("compileFilterSql agrees with matchesFilter (users)", (target) => {
  let database: FilterTestDatabase;
  beforeAll(async () => {
    database = await target.open();
    await insertRows(database.db, rowsOf("o1", testUsers, users));
    // Another organization holds resources with the same ids: nothing may cross (architecture §3).
    const swapped = users.map(({ resource }, index) => ({
      resource: { ...resource, attributes: users[(index + 1) % users.length]!.resource.attributes },
    }));
    await insertRows(database.db, rowsOf("o2", testUsers, swapped));
  });
  afterAll(async () => database?.close());

  it.each(filters)("%s", async (text, expected) => {
    const filter = resolvedFilter(testUsers, text);
    expect(referenceIds("User", users, filter), "the reference disagrees with the expected ids").toEqual([...expected]);
    const condition = compileFilterSql(filter, { dialect: database.dialect, resource: "r" });
    expect(await selectIds(database.db, "o1", "User", condition)).toEqual([...expected]);
  });
});

function group(id: string, displayName: string, members: readonly (readonly [string, string])[]): FixtureResource {
  return {
    resource: {
      id,
      version: "1",
      created: "2020-01-01T00:00:00.000Z",
      lastModified: "2020-01-01T00:00:00.000Z",
      attributes: canonicalAttributes(groups, { displayName }),
    },
    members: members.map(([value, type]) => ({ value, type })),
  };
}

const teams: readonly FixtureResource[] = [
  group("g1", "Admins", [
    ["u1", "User"],
    ["u2", "User"],
  ]),
  group("g2", "Readers", [["g1", "Group"]]),
  group("g3", "Empty", []),
  group("g4", "MixedCase", [
    ["U-UPPER", "User"],
    ["u2", "User"],
  ]),
];

const memberFilters: readonly (readonly [string, readonly string[]])[] = [
  ['members.value eq "u1"', ["g1"]],
  // members.value is caseExact false (RFC 7643 §8.7.1).
  ['members.value eq "U2"', ["g1", "g4"]],
  ['members.value eq "u-upper"', ["g4"]],
  ['members eq "g1"', ["g2"]],
  ['members co "upp"', ["g4"]],
  ['members[type eq "Group"]', ["g2"]],
  ['members[type eq "user" and value eq "u2"]', ["g1", "g4"]],
  ['members[type eq "Group" and value eq "u2"]', []],
  ["members pr", ["g1", "g2", "g4"]],
  ["members eq null", ["g3"]],
  ["not (members pr)", ["g3"]],
  // The view holds only value and type: display and $ref are never there.
  ["members.display pr", []],
  ['members.display eq "x"', []],
  ["members.display eq null", ["g1", "g2", "g3", "g4"]],
  ['members.$ref ne "x"', ["g1", "g2", "g3", "g4"]],
  ['members.type ne "User"', ["g2", "g3"]],
  ['not (members.value eq "u1")', ["g2", "g3", "g4"]],
  ['members.value gt "u"', ["g1", "g4"]],
  ['displayName eq "admins"', ["g1"]],
  ['displayName eq "Admins" and members.value eq "u1"', ["g1"]],
  ['displayName co "e" and not (members[type eq "Group"])', ["g3", "g4"]],
];

describeEachDatabase("compileFilterSql agrees with matchesFilter (groups and members)", (target) => {
  let database: FilterTestDatabase;
  beforeAll(async () => {
    database = await target.open();
    await insertRows(database.db, rowsOf("o1", groups, teams));
    // Same ids elsewhere, with other names and members.
    const others = teams.map(({ resource }, index) => ({
      resource: { ...resource, attributes: teams[(index + 1) % teams.length]!.resource.attributes },
      members: [{ value: "u1", type: "Group" }],
    }));
    await insertRows(database.db, rowsOf("o2", groups, others));
  });
  afterAll(async () => database?.close());

  it.each(memberFilters)("%s", async (text, expected) => {
    const filter = resolvedFilter(groups, text);
    expect(referenceIds("Group", teams, filter), "the reference disagrees with the expected ids").toEqual([...expected]);
    const condition = compileFilterSql(filter, { dialect: database.dialect, resource: "r" });
    expect(await selectIds(database.db, "o1", "Group", condition)).toEqual([...expected]);
  });
});
