/**
 * SQLite's e-mail search table (migration 8, written by the store) never changes a result: for e-mail values with
 * characters that fold in more than one way (é, Ä, Σ, İ, which folds to two code points), the
 * pattern characters of LIKE and GLOB (`%`, `_`, `*`, `?`, `[`, `\`), quotes (`'`, `"`), and
 * values and needles shorter than the three characters a trigram needs, every filter selects
 * the same ids with the prefilter as without it — and those `matchesFilter` accepts. The
 * prefilter is there exactly where the search text (needle with its anchoring quotes) has three
 * characters or more and no character the compiler keeps it away from.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testUsers } from "../../../scim/filter/filter-schema.fixture.js";
import { compileFilterSql } from "./compile-filter-sql.js";
import { canonicalAttributes, referenceIds, resolvedFilter, rowsOf, type FixtureResource } from "./filter-agreement.fixture.js";
import { insertRows, openSqlite, selectIds, type FilterTestDatabase } from "./filter-test-database.fixture.js";
import { SQLITE_EMAILS_SEARCH, sqliteFilterDialect } from "./sqlite-filter-dialect.js";

function user(id: string, values: readonly string[]): FixtureResource {
  const time = "2020-01-01T00:00:00.000Z";
  const emails = values.map((value, index) => ({ value, type: index === 0 ? "work" : "home" }));
  return {
    resource: { id, version: "1", created: time, lastModified: time, attributes: canonicalAttributes(testUsers, { userName: id, emails }) },
  };
}

const users: readonly FixtureResource[] = [
  user("t01", ["José@Example.com"]),
  user("t02", ["ÄRGER@dept7.example"]),
  user("t03", ["ΣΟΦΊΑ@x.gr", "σοφία@y.gr"]),
  user("t04", ["İstanbul@x.tr"]),
  user("t05", ["100%_sure@x.io"]),
  user("t06", ["1000xsure@x.io"]),
  user("t07", ["star*q?@x.io"]),
  user("t08", ["[br]acket@x.io"]),
  user("t09", ["back\\slash@x.io"]),
  user("t10", ["o'brien@x.ie"]),
  user("t11", ['say"hi"@x.io']),
  user("t12", ["ab"]),
  user("t13", ["a", "b@c"]),
  user("t14", []),
  user("t15", ["AND@or.NOT", "near*@x"]),
];

const needles = [
  // Shorter than three characters, alone and anchored.
  "a",
  "ab",
  "b@",
  "é",
  "İ",
  // Folding: the needle and the text are folded by the same JavaScript toLowerCase.
  "josé",
  "JOSÉ@",
  "ärger",
  "ÄRGER@DEPT7",
  "@dept7.",
  "σοφ",
  "ΣΟΦ",
  "istanbul",
  "i̇stan",
  "İSTANBUL@X.TR",
  // LIKE and GLOB pattern characters are literal.
  "%_s",
  "0%_",
  "00x",
  "_sure",
  "*q?",
  "r*q",
  "[br]",
  "[b",
  "br]",
  "k\\s",
  "o'b",
  "'",
  'y"h',
  // FTS5 query syntax is literal inside the phrase.
  "and@or",
  "AND",
  "near*",
  "@x.io",
];

const operators = ["co", "sw", "ew", "eq"] as const;
const texts = needles.flatMap((needle) =>
  operators.flatMap((op) => [
    `emails.value ${op} ${JSON.stringify(needle)}`,
    `emails[type eq "work" and value ${op} ${JSON.stringify(needle)}]`,
  ]),
);

// The search text the compiler hands the dialect for `op`: the needle between the quotes it anchors at.
const anchored = (op: (typeof operators)[number], needle: string): string =>
  op === "eq" ? `"${needle}"` : op === "sw" ? `"${needle}` : op === "ew" ? `${needle}"` : needle;

describe("SQLite's e-mail search table agrees with no prefilter, for tricky values", () => {
  let database: FilterTestDatabase;
  beforeAll(async () => {
    database = await openSqlite();
    await insertRows(database.db, rowsOf("o1", testUsers, users));
  });
  afterAll(async () => database?.close());

  const sqlOf = (text: string, prefilter: boolean): { sql: string; parameters: readonly unknown[] } => {
    const dialect = prefilter ? database.dialect : sqliteFilterDialect;
    const condition = compileFilterSql(resolvedFilter(testUsers, text), { dialect, resource: "r" });
    return database.db.selectFrom("scimkit_resources as r").select("r.id").where(condition).compile();
  };

  it("the test database has the table (better-sqlite3 bundles FTS5 with the trigram tokenizer)", () => {
    expect(sqlOf('emails.value co "@dept7."', true).sql).toContain(SQLITE_EMAILS_SEARCH.table);
  });

  it.each(texts)("%s", async (text) => {
    const filter = resolvedFilter(testUsers, text);
    const expected = referenceIds("User", users, filter);
    const withPrefilter = await selectIds(
      database.db,
      "o1",
      "User",
      compileFilterSql(filter, { dialect: database.dialect, resource: "r" }),
    );
    const without = await selectIds(database.db, "o1", "User", compileFilterSql(filter, { dialect: sqliteFilterDialect, resource: "r" }));
    expect(withPrefilter).toEqual(without);
    expect(withPrefilter).toEqual(expected);
  });

  it("has a prefilter exactly where the anchored, folded needle has three characters or more and nothing unsafe", () => {
    let prefiltered = 0;
    for (const needle of needles) {
      for (const op of operators) {
        const folded = needle.toLowerCase();
        // What `searchPrefilter` keeps away: JSON escapes and the context-folded sigmas.
        const expected = [...anchored(op, folded)].length >= 3 && !/["\\\u0000-\u001f\u03a3\u03c2\u03c3]/.test(folded);
        const { sql } = sqlOf(`emails.value ${op} ${JSON.stringify(needle)}`, true);
        expect(sql.includes(SQLITE_EMAILS_SEARCH.table), `${op} ${needle}`).toBe(expected);
        if (expected) prefiltered += 1;
      }
    }
    // Most of these comparisons do get one; what they select is checked above.
    expect(prefiltered).toBeGreaterThan(needles.length * 2);
  });

  it("binds the needle as one FTS5 phrase, quotes doubled", () => {
    expect(sqlOf('emails.value eq "O\'Brien@x.ie"', true).parameters[0]).toBe('"""o\'brien@x.ie"""');
    expect(sqlOf('emails.value co "near*"', true).parameters[0]).toBe('"near*"');
    expect(sqlOf('emails.value sw "Ab"', true).parameters[0]).toBe('"""ab"');
  });
});
