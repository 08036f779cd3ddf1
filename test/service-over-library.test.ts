import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isFixture, isTest, typeScriptFiles } from "./import-graph.fixture.js";
import { type TopLevelFunction, topLevelFunctionsOf } from "./top-level-functions.fixture.js";

/**
 * The service is built over the library's public entries, not beside copies of its insides
 * (issue 28, point 3): no function of server/src is a library function written again (once,
 * `withRowLock` was `lockRows` renamed), and the analytics SQL reaches the SCIM resources' JSON
 * only through `scimkit/sql` (`resourceFilterSql`, `resourceAttribute` and the dialect's JSON
 * hooks), so how the store lays out a row can change without the service noticing.
 */
const production = (root: string): string[] => typeScriptFiles(resolve(root)).filter((file) => !isTest(file) && !isFixture(file));

const LIBRARY = production("src");
const SERVICE = production("server/src");

/** Shorter than this, two functions agree by accident (`(value) => value.trim()`), not by copying. */
const MIN_SHAPE = 120;

/** The SQL of a resource's JSON, in either dialect, and the column that holds it. */
const JSON_SQL = [
  /->>?\s*'/, // PostgreSQL's jsonb operators
  /\bjsonb?_(extract|each|type|array_elements|typeof|path_query)\b/,
  /\battributes\s*->/,
  /sql\.ref\([^)]*attributes/,
];

/**
 * Copies kept on purpose: Express idioms of a few lines that both packages need on Express 4 and 5,
 * which the library keeps internal so that its entries export no plumbing (issue 28, point 2).
 */
const KEPT: Readonly<Record<string, string>> = {
  asyncHandler: "Express 4 does not forward a handler's rejected promise; three lines each router needs",
  queryOf: "the raw query string, the same under Express 4's qs and 5's simple parser; four lines",
};

const where = (fn: TopLevelFunction): string => `${relative(resolve("."), fn.file)}:${fn.line} ${fn.name}`;

describe("the service over the library", () => {
  it("writes none of the library's functions again", () => {
    const library = new Map<string, TopLevelFunction>();
    for (const fn of LIBRARY.flatMap(topLevelFunctionsOf)) if (fn.shape.length >= MIN_SHAPE) library.set(fn.shape, fn);
    expect(library.size).toBeGreaterThan(500);
    const copies = SERVICE.flatMap(topLevelFunctionsOf).flatMap((fn) => {
      const original = library.get(fn.shape);
      return original && KEPT[fn.name] === undefined ? [`${where(fn)} is ${where(original)}`] : [];
    });
    expect(copies).toEqual([]);
  });

  it("reads the resources' JSON only through scimkit/sql", () => {
    const sqlFiles = SERVICE.filter((file) => file.includes("/sql/"));
    expect(sqlFiles.length).toBeGreaterThan(10);
    const raw = sqlFiles.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, index) =>
          JSON_SQL.some((pattern) => pattern.test(line)) ? [`${relative(resolve("."), file)}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(raw).toEqual([]);
  });
});
