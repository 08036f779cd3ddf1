import { dirname, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isFixture, isInside, isScimkit, isTest, specifiersOf, typeScriptFiles } from "../../test/import-graph.fixture.js";

/**
 * Analytics is a client of scimkit's public API (issue 13, point 1): every import and re-export
 * of `src/analytics/` names a file of its own, a `node:` builtin, an npm package, or a scimkit
 * entry point by name — never a private file of the library. Its tests may also import shared
 * test fixtures (`*.fixture.ts`) and any entry. The library knows nothing of the service (issue
 * 28): nothing of it — nor `ajv`, the service's dependency — loads with SCIM. Specifiers are read
 * with TypeScript's own pre-processor, so comments and strings that look like imports do not count.
 */
const ANALYTICS = resolve("src/analytics");

/** The entries the analytics library code may import, as a user's app would. */
const PRODUCTION_ENTRIES = new Set(["scimkit", "scimkit/core", "scimkit/store", "scimkit/sql"]);

/** Why `specifier` may not be imported by `file`, or undefined when it may. */
function refusal(file: string, specifier: string): string | undefined {
  if (specifier.startsWith("node:")) return undefined;
  const test = isTest(file) || isFixture(file);
  if (specifier.startsWith(".")) {
    const target = resolve(dirname(file), specifier);
    if (isInside(target, ANALYTICS)) return undefined;
    if (test && /\.fixture\.(js|ts)$/.test(target)) return undefined;
    return "a private file outside src/analytics: import it from a scimkit entry by name";
  }
  if (isScimkit(specifier)) {
    if (test) return undefined;
    return PRODUCTION_ENTRIES.has(specifier) ? undefined : `not one of ${[...PRODUCTION_ENTRIES].join(", ")}`;
  }
  return undefined;
}

describe("src/analytics imports only the public API", () => {
  const files = typeScriptFiles(ANALYTICS);

  it("finds the analytics files", () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it("every import and re-export names its own files, node:, npm packages or a scimkit entry", () => {
    const refused = files.flatMap((file) =>
      specifiersOf(file).flatMap((specifier) => {
        const why = refusal(file, specifier);
        return why === undefined ? [] : [`${relative(".", file)}: "${specifier}" (${why})`];
      }),
    );
    expect(refused).toEqual([]);
  });
});
