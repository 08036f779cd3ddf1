import { dirname, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  isFixture,
  isInside,
  isScimkit,
  isTest,
  packageOf,
  specifiersOf,
  typeScriptFiles,
  valueImportsOf,
} from "./import-graph.fixture.js";

/**
 * Analytics is a client of scimkit's public API (issue 13, point 1): every import and re-export
 * of `src/analytics/` names a file of its own, a `node:` builtin, an npm package, or a scimkit
 * entry point by name — never a private file of the SCIM side. Its tests may also import shared
 * test fixtures (`*.fixture.ts`) and any entry. The rest of `src/` knows analytics by its public
 * types only (the analytics conformance kit in `scimkit/testkit`), so nothing of it — nor `ajv`,
 * a dependency of the analytics entry only (an optional peer) — loads with SCIM. Specifiers are
 * read with TypeScript's own pre-processor and parser, so comments and strings that look like
 * imports do not count.
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

  it("nothing outside src/analytics imports ajv or ajv-formats", () => {
    const outside = typeScriptFiles(resolve("src")).filter((file) => !isInside(file, ANALYTICS));
    const refused = outside.flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => !specifier.startsWith(".") && ["ajv", "ajv-formats"].includes(packageOf(specifier)))
        .map((specifier) => `${relative(".", file)}: "${specifier}"`),
    );
    expect(refused).toEqual([]);
  });

  // The host (src/host) is an application built on the package, as a user's is: it mounts analytics by name.
  it("in the library outside src/analytics, only types come from scimkit/analytics, and no analytics file is imported", () => {
    const outside = typeScriptFiles(resolve("src")).filter((file) => !isInside(file, ANALYTICS) && !isInside(file, resolve("src", "host")));
    const refused = outside.flatMap((file) =>
      valueImportsOf(file)
        .filter(
          (specifier) =>
            (specifier.startsWith(".") && isInside(resolve(dirname(file), specifier), ANALYTICS)) || specifier === "scimkit/analytics",
        )
        .map((specifier) => `${relative(".", file)}: "${specifier}"`),
    );
    expect(refused).toEqual([]);
  });
});
