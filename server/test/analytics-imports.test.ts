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

/**
 * The entries the analytics code may import, as a user's app would: the router's, the protocol
 * core, the store contract and the SQL store it keeps its tables beside, and the features whose
 * data it serves or whose behaviour it shares with SCIM (the audit trail, the provisioning log,
 * the security events, rate limits, JSON bodies, sealed cursors). Not the memory store, nor the
 * testkit, nor OAuth: the analytics interface does not serve them.
 */
const PRODUCTION_ENTRIES = new Set([
  "scimkit",
  "scimkit/audit",
  "scimkit/body",
  "scimkit/core",
  "scimkit/cursor",
  "scimkit/events",
  "scimkit/rate-limit",
  "scimkit/request-log",
  "scimkit/sql",
  "scimkit/store",
]);

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
