/**
 * The e-mail search prefilter never changes a result (`searchPrefilter`): hand-picked e-mail
 * values whose JSON text differs from the value — quotes, backslashes, control characters, a Σ
 * that folds to ς in the escaped text but to σ in the value — and needles the column holds where
 * no value does (between two values, inside an escape), each selecting exactly what
 * `matchesFilter` selects, on PostgreSQL (`emails_search`) and on SQLite (`scimkit_emails_search`).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { testUsers } from "../../../scim/filter/filter-schema.fixture.js";
import { compileFilterSql } from "./compile-filter-sql.js";
import { canonicalAttributes, referenceIds, resolvedFilter, rowsOf, type FixtureResource } from "./filter-agreement.fixture.js";
import { describeEachDatabase, insertRows, selectIds, type FilterTestDatabase } from "./filter-test-database.fixture.js";

function user(id: string, emails: readonly Readonly<Record<string, unknown>>[]): FixtureResource {
  const time = "2020-01-01T00:00:00.000Z";
  return {
    resource: { id, version: "1", created: time, lastModified: time, attributes: canonicalAttributes(testUsers, { userName: id, emails }) },
  };
}

const users: readonly FixtureResource[] = [
  // JSON text `"x\nΣ"` folds to `"x\nς"`: the Σ follows the letter n there, and nothing in the value.
  user("p1", [{ value: "x\nΣ", type: "work" }]),
  user("p2", [{ value: 'a"b@x.io', type: "work" }]),
  user("p3", [{ value: "back\\slash@x.io", type: "home" }]),
  user("p4", [{ value: "tab\there@x.io", type: "work" }]),
  user("p5", [{ value: "ÄRGER@Example.COM", type: "Work" }]),
  user("p6", [{ value: "İstanbul@x.io", type: "other" }]),
  user("p7", [
    { value: "first@a.io", type: "work" },
    { value: "second@b.io", type: "home", primary: true },
  ]),
  user("p8", []),
  user("p9", [{ value: "[br]acket@x.io", type: "work" }, { type: "home" }]),
  user("p10", [
    { value: "a\nb@x.io", type: "work" },
    { value: "ΣΑΣ@x.io", type: "home" },
  ]),
];

const filters: readonly (readonly [string, readonly string[]])[] = [
  // Needles the column cannot be trusted with: no prefilter, and the exact test finds them.
  ['emails.value co "Σ"', ["p1", "p10"]],
  ['emails.value co "σ"', ["p1", "p10"]],
  ['emails.value ew "ς@x.io"', ["p10"]],
  ['emails.value co "a\\"b"', ["p2"]],
  ['emails.value co "k\\\\s"', ["p3"]],
  ['emails.value co "b\\th"', ["p4"]],
  ['emails.value co "tab\\there"', ["p4"]],
  ['emails.value co "\\n"', ["p1", "p10"]],
  // Needles with none of those characters, near values that hold them.
  ['emails.value co "b@x"', ["p10", "p2"]],
  ['emails.value sw "back"', ["p3"]],
  ['emails.value ew "slash@x.io"', ["p3"]],
  ['emails.value co "here@x"', ["p4"]],
  ['emails.value sw "x"', ["p1"]],
  // The value's Σ follows a newline, so it folds to σ (not ς), in JavaScript and in the value.
  ['emails.value ew "Σ"', ["p1"]],
  // The column holds `\n`, `\t`, `, ` and `[` where no value does: the exact test still decides.
  ['emails.value co "nb@"', []],
  ['emails.value co "there"', []],
  ['emails.value co ", "', []],
  ['emails.value co "["', ["p9"]],
  ['emails.value co "io"', ["p10", "p2", "p3", "p4", "p6", "p7", "p9"]],
  // Case folding, non-ASCII included (İ folds to two code points).
  ['emails[type eq "work" and value sw "ärger@"]', ["p5"]],
  ['emails.value ew "@EXAMPLE.com"', ["p5"]],
  ['emails.value sw "İst"', ["p6"]],
  ['emails.value co "i̇stan"', ["p6"]],
  // eq, sw, ew anchor at the quotes around each value; one element must satisfy a whole bracket.
  ['emails.value eq "SECOND@b.io"', ["p7"]],
  ['emails.value eq "second@b.i"', []],
  ['emails.value sw "second"', ["p7"]],
  ['emails.value ew "first@a.io"', ["p7"]],
  ['emails[type eq "work" and value co "second"]', []],
  ['emails[type eq "home" and value co "second"]', ["p7"]],
  ['emails[type eq "work"].value ew "@a.io"', ["p7"]],
  ['emails[primary eq true and value sw "second"]', ["p7"]],
  // Combinations and negations.
  ['emails.value co "first" and emails.value co "second"', ["p7"]],
  ['emails.value co "first" or emails.value co "ärger"', ["p5", "p7"]],
  ['not (emails.value co "@x.io")', ["p1", "p5", "p7", "p8"]],
  ['emails.value ne "second@b.io"', ["p1", "p10", "p2", "p3", "p4", "p5", "p6", "p8", "p9"]],
  ['userName eq "p7" and emails co "b.io"', ["p7"]],
];

describeEachDatabase("the e-mail search prefilter agrees with matchesFilter", (target) => {
  let database: FilterTestDatabase;
  beforeAll(async () => {
    database = await target.open();
    await insertRows(database.db, rowsOf("o1", testUsers, users));
    // The same ids elsewhere with other e-mails: the column must not cross tenants either.
    const swapped = users.map(({ resource }, index) => ({
      resource: { ...resource, attributes: users[(index + 3) % users.length]!.resource.attributes },
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
