/**
 * fast-check arbitraries for the compiler's property tests: users of the filter-test schema
 * (`testUsers`: core User, enterprise extension, and an extension with every SCIM type), and
 * filter texts from a grammar over their attributes and every operator. Values come from a small
 * alphabet — mixed case, non-ASCII letters whose lower case JavaScript and ICU agree on, the
 * pattern characters of LIKE and GLOB, and the `"` and `\` that JSON text escapes (PostgreSQL's
 * `emails_search` holds it) — so that comparisons hit as often as they miss.
 */
import fc from "fast-check";
import { TEST_URN, testUsers } from "../../../scim/filter/filter-schema.fixture.js";
import type { StoredResource } from "../../resource-store.js";
import { canonicalAttributes, type FixtureResource } from "./filter-agreement.fixture.js";

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

// "Σ" lower-cases to "ς" at the end of a word and "σ" elsewhere, "İ" to two code units.
const ALPHABET = ["a", "b", "A", "B", "é", "É", "ä", "Ä", "Σ", "İ", "%", "_", "*", "?", "[", "\\", '"', "'", " "];

/** A short string over the alphabet. */
export function word(maxLength = 3, minLength = 0): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...ALPHABET), minLength, maxLength });
}

const INSTANTS = [
  "1999-12-31T23:59:59.999Z",
  "2020-01-01T00:00:00.000Z",
  "2020-01-01T00:00:00.001Z",
  "2020-06-15T12:30:00.000Z",
  "2021-01-01T00:00:00.000Z",
];

/** An instant of the pool written as a client might: with millis or not, in UTC or with an offset. */
export const dateTimeText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...INSTANTS), fc.constantFrom(0, 120, -330), fc.boolean())
  .map(([instant, offsetMinutes, trimMillis]) => {
    const local = new Date(Date.parse(instant) + offsetMinutes * 60_000).toISOString().slice(0, -1);
    const text = trimMillis ? local.replace(/\.000$/, "") : local;
    if (offsetMinutes === 0) return `${text}Z`;
    const sign = offsetMinutes < 0 ? "-" : "+";
    const minutes = Math.abs(offsetMinutes);
    return `${text}${sign}${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
  });

const NUMBERS = [-3, -1.5, 0, 0.1, 0.30000000000000004, 1, 2, 3, 1e21];
const SCORES = fc.constantFrom(...NUMBERS);
const LEVELS = fc.integer({ min: -3, max: 3 });

const opt = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(arbitrary, { freq: 3 });

const email = fc.record({ value: opt(word(4)), type: opt(fc.constantFrom("work", "home", "Work", "other")), display: opt(word(2)) });
const device = fc.record({ serial: opt(word(2)), kind: opt(word(2)), lastSeen: opt(dateTimeText), trusted: opt(fc.boolean()) });

const userBody = fc
  .record({
    name: opt(fc.record({ givenName: opt(word(3)), familyName: opt(word(4)) })),
    title: opt(word(4)),
    displayName: opt(word(2)),
    externalId: opt(fc.constantFrom("", "x", "X", "x1", "%", "_")),
    active: opt(fc.boolean()),
    emails: fc.array(email, { maxLength: 3 }),
    primaryEmail: fc.nat(4),
    department: opt(word(3)),
    manager: opt(word(2)),
    level: opt(LEVELS),
    score: opt(SCORES),
    badge: opt(word(3)),
    verified: opt(fc.boolean()),
    hiredAt: opt(dateTimeText),
    fingerprint: opt(fc.constantFrom("QUJD", "qujd", "")),
    homepage: opt(word(2)),
    tags: fc.array(word(2), { maxLength: 3 }),
    codes: fc.array(word(2), { maxLength: 2 }),
    devices: fc.array(device, { maxLength: 2 }),
  })
  .map((u) => ({
    name: u.name,
    title: u.title,
    displayName: u.displayName,
    externalId: u.externalId,
    active: u.active,
    // RFC 7643 §2.4: at most one primary; `primaryEmail` past the end means none.
    emails: u.emails.map((element, index) => ({ ...element, primary: index === u.primaryEmail ? true : index % 2 === 0 ? false : null })),
    [ENTERPRISE]: { department: u.department, manager: u.manager === null ? null : { value: u.manager } },
    [TEST_URN]: {
      level: u.level,
      score: u.score,
      badge: u.badge,
      verified: u.verified,
      hiredAt: u.hiredAt,
      fingerprint: u.fingerprint,
      homepage: u.homepage,
      tags: u.tags,
      codes: u.codes,
      devices: u.devices,
    },
  }));

/** Ids that differ in case and sort differently by code unit than by any locale. */
const ids = fc.uniqueArray(fc.string({ unit: fc.constantFrom("a", "B", "c", "_", "-", "0", "Z"), minLength: 1, maxLength: 4 }), {
  minLength: 0,
  maxLength: 12,
});

/** Users as the store holds them: canonical attributes, unique user names (case-insensitively). */
export const randomUsers: fc.Arbitrary<FixtureResource[]> = ids.chain((chosen) =>
  fc
    .tuple(
      fc.uniqueArray(word(4, 1), { selector: (name) => name.toLowerCase(), minLength: chosen.length, maxLength: chosen.length }),
      fc.array(fc.tuple(userBody, fc.constantFrom(...INSTANTS), fc.constantFrom(...INSTANTS), fc.integer({ min: 1, max: 20 })), {
        minLength: chosen.length,
        maxLength: chosen.length,
      }),
    )
    .map(([userNames, rest]) =>
      chosen.map((id, index): FixtureResource => {
        const [body, created, lastModified, version] = rest[index]!;
        const resource: StoredResource = {
          id,
          version: String(version),
          created,
          lastModified,
          attributes: canonicalAttributes(testUsers, { userName: userNames[index]!, ...body }),
        };
        return { resource };
      }),
    ),
);

type ValueKind = "string" | "exact" | "whole" | "binary" | "id" | "version" | "boolean" | "number" | "dateTime";

const quote = (value: string): string => JSON.stringify(value);

/** A comparison of a path of `kind`, as filter text after the path. */
function comparison(kind: ValueKind, ids: readonly string[]): fc.Arbitrary<string> {
  const ordering = fc.constantFrom("eq", "ne", "gt", "ge", "lt", "le");
  const all = fc.constantFrom("eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le");
  const equality = fc.constantFrom("eq", "ne");
  const nullTest = fc.constantFrom("eq null", "ne null", "pr");
  const compare = (ops: fc.Arbitrary<string>, values: fc.Arbitrary<string>): fc.Arbitrary<string> =>
    fc.tuple(ops, values).map(([op, value]) => `${op} ${value}`);
  const strings = word(2).map(quote);
  const typed: Record<ValueKind, fc.Arbitrary<string>> = {
    string: compare(all, strings),
    exact: compare(all, strings),
    whole: compare(fc.constantFrom("eq", "ne", "co", "sw", "ew"), strings),
    binary: compare(equality, fc.constantFrom("QUJD", "qujd", "").map(quote)),
    id: compare(all, fc.oneof(fc.constantFrom(...(ids.length > 0 ? ids : ["a"])), word(2)).map(quote)),
    version: compare(
      all,
      fc.integer({ min: 0, max: 21 }).map((n) => quote(`W/"${n}"`)),
    ),
    boolean: compare(equality, fc.constantFrom("true", "false", '"True"', '"false"')),
    number: compare(ordering, fc.constantFrom(...NUMBERS).map(String)),
    dateTime: compare(ordering, dateTimeText.map(quote)),
  };
  return fc.oneof({ weight: 5, arbitrary: typed[kind] }, { weight: 1, arbitrary: nullTest });
}

const TOP_PATHS: readonly (readonly [string, ValueKind])[] = [
  ["userName", "string"],
  ["title", "string"],
  ["displayName", "string"],
  ["name.givenName", "string"],
  ["name.familyName", "string"],
  ["emails", "whole"],
  ["emails.value", "string"],
  ["emails.type", "string"],
  ["emails.display", "string"],
  ["emails.primary", "boolean"],
  ["department", "string"],
  [`${ENTERPRISE}:department`, "string"],
  ["manager", "whole"],
  [`${ENTERPRISE}:manager.value`, "string"],
  ["externalId", "exact"],
  ["id", "id"],
  ["meta.resourceType", "exact"],
  ["meta.version", "version"],
  ["meta.created", "dateTime"],
  ["meta.lastModified", "dateTime"],
  ["meta.location", "exact"],
  ["active", "boolean"],
  [`${TEST_URN}:level`, "number"],
  [`${TEST_URN}:score`, "number"],
  [`${TEST_URN}:badge`, "exact"],
  [`${TEST_URN}:verified`, "boolean"],
  [`${TEST_URN}:hiredAt`, "dateTime"],
  [`${TEST_URN}:fingerprint`, "binary"],
  [`${TEST_URN}:homepage`, "string"],
  [`${TEST_URN}:tags`, "string"],
  [`${TEST_URN}:codes`, "exact"],
  [`${TEST_URN}:devices.serial`, "exact"],
  [`${TEST_URN}:devices.kind`, "string"],
  [`${TEST_URN}:devices.lastSeen`, "dateTime"],
  [`${TEST_URN}:devices.trusted`, "boolean"],
];

/** Complex attributes: `pr`, `eq null` and `ne null` test them whole. */
const COMPLEX_PATHS = ["name", "emails", "manager", "meta", `${TEST_URN}:devices`, "ims"];

/** `attr[…]` targets and the sub-attributes their brackets may test. */
const BRACKETS: readonly (readonly [string, readonly (readonly [string, ValueKind])[]])[] = [
  [
    "emails",
    [
      ["value", "string"],
      ["type", "string"],
      ["display", "string"],
      ["primary", "boolean"],
    ],
  ],
  [
    `${TEST_URN}:devices`,
    [
      ["serial", "exact"],
      ["kind", "string"],
      ["lastSeen", "dateTime"],
      ["trusted", "boolean"],
    ],
  ],
  [
    "name",
    [
      ["givenName", "string"],
      ["familyName", "string"],
    ],
  ],
  [
    "meta",
    [
      ["resourceType", "exact"],
      ["created", "dateTime"],
      ["version", "version"],
    ],
  ],
];

function atom(paths: readonly (readonly [string, ValueKind])[], ids: readonly string[]): fc.Arbitrary<string> {
  return fc.constantFrom(...paths).chain(([path, kind]) => comparison(kind, ids).map((test) => `${path} ${test}`));
}

function combine(depth: number, leaf: fc.Arbitrary<string>, extra: readonly fc.Arbitrary<string>[] = []): fc.Arbitrary<string> {
  if (depth === 0) return leaf;
  const inner = combine(depth - 1, leaf, extra);
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    ...extra.map((arbitrary) => ({ weight: 2, arbitrary })),
    { weight: 2, arbitrary: fc.tuple(inner, inner).map(([a, b]) => `(${a} and ${b})`) },
    { weight: 2, arbitrary: fc.tuple(inner, inner).map(([a, b]) => `(${a} or ${b})`) },
    { weight: 1, arbitrary: inner.map((a) => `not (${a})`) },
  );
}

/** A filter over `testUsers`, given the ids of the population so that `id` comparisons hit. */
export function randomFilter(ids: readonly string[]): fc.Arbitrary<string> {
  const complex = fc
    .tuple(fc.constantFrom(...COMPLEX_PATHS), fc.constantFrom("pr", "eq null", "ne null"))
    .map(([path, test]) => `${path} ${test}`);
  const leaf = fc.oneof({ weight: 6, arbitrary: atom(TOP_PATHS, ids) }, { weight: 1, arbitrary: complex });
  const bracket = fc.constantFrom(...BRACKETS).chain(([path, subs]) =>
    fc.oneof(
      combine(2, atom(subs, ids)).map((inner) => `${path}[${inner}]`),
      // `attr[…].sub op value`: one element satisfies both (RFC 7644 §3.4.2.2 valuePath then subAttr).
      fc.tuple(combine(1, atom(subs, ids)), atom(subs, ids)).map(([inner, last]) => `${path}[${inner}].${last}`),
    ),
  );
  return combine(3, leaf, [bracket]);
}

/** Every path a list may sort by, each sort key type and source included. */
export const SORT_PATHS: readonly string[] = [
  "userName",
  "title",
  "displayName",
  "name",
  "name.givenName",
  "name.familyName",
  "emails",
  "emails.value",
  "emails.type",
  "emails.display",
  "emails.primary",
  "externalId",
  "id",
  "meta",
  "meta.created",
  "meta.lastModified",
  "meta.version",
  "meta.resourceType",
  "meta.location",
  "active",
  "department",
  "manager",
  `${ENTERPRISE}:manager.value`,
  `${TEST_URN}:level`,
  `${TEST_URN}:score`,
  `${TEST_URN}:badge`,
  `${TEST_URN}:verified`,
  `${TEST_URN}:hiredAt`,
  `${TEST_URN}:fingerprint`,
  `${TEST_URN}:tags`,
  `${TEST_URN}:codes`,
  `${TEST_URN}:devices`,
  `${TEST_URN}:devices.serial`,
  `${TEST_URN}:devices.trusted`,
  `${TEST_URN}:devices.lastSeen`,
];
