import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type ImportOf, importCycles, importsOf, isFixture, isInside, isTest, packageOf, typeScriptFiles } from "./import-graph.fixture.js";

/**
 * The library's layering as tests (issue 28, point 3): every "never" of DESIGN.md §2 and
 * docs/architecture.md §2 ("imports point down only") is a rule over folders, checked on every
 * import and re-export, type-only ones included (a type import still ties a layer to the one it
 * names). Each failure names the file and the import as written. The service (server/, the
 * package @scimkit/server) is an application over the public entries, guarded by its own
 * server/test/analytics-imports.test.ts; the library never imports it.
 */
const SRC = resolve("src");
const folder = (...parts: string[]): string => resolve(SRC, ...parts);

const HTTP = folder("http");
const SCIM = folder("scim");
const STORE = folder("store");
const AUTH = folder("auth");
const AUDIT = folder("audit");
const TESTKIT = folder("testkit");
/** The service's package: what the library must never import. */
const SERVICE = resolve("server");

/**
 * The files behind the package's entries (package.json `exports`): each gathers one feature for an
 * app, from whichever layers it spans (`scimkit/events` holds the outbox's events of src/http and
 * the delivery of src/events), and only re-exports (test/entry-points.test.ts), so no layer's
 * code depends on it.
 */
const ENTRIES = Object.values(
  (
    JSON.parse(readFileSync("package.json", "utf8")) as {
      readonly exports: Record<string, string | { readonly "scimkit-source"?: string }>;
    }
  ).exports,
).flatMap((target) => (typeof target === "object" && target["scimkit-source"] ? [resolve(target["scimkit-source"])] : []));

/** The files at the bottom, under every layer: they import only each other. */
const BOTTOM = [
  "errors.ts",
  "oauth-errors.ts",
  "result.ts",
  "event-loop-slice.ts",
  "uuid-v7.ts",
  "is-possible-id.ts",
  "read-bounded-text.ts",
].map((name) => folder(name));
const isBottom = (path: string | undefined): boolean => path !== undefined && BOTTOM.includes(path);

/** Modules that reach outside the process: the protocol core imports none of them. */
const IO_MODULES = new Set([
  "fs",
  "net",
  "tls",
  "http",
  "https",
  "http2",
  "child_process",
  "dgram",
  "dns",
  "worker_threads",
  "pg",
  "better-sqlite3",
  "express",
]);
/** The module a bare specifier names, `node:` and subpaths dropped: `fs` for `node:fs/promises`. */
const moduleOf = (specifier: string): string => packageOf(specifier.replace(/^node:/, ""));

const ALL = typeScriptFiles(SRC);
/** The library's own files. */
const LIBRARY = ALL;
const isProduction = (file: string): boolean => !isTest(file) && !isFixture(file);
const filesIn = (directory: string, files: readonly string[] = LIBRARY): string[] => files.filter((file) => isInside(file, directory));

/** Why `file` may not import `imported`, or undefined when it may. */
type Refusal = (file: string, imported: ImportOf) => string | undefined;

/** The imports of `files` a rule refuses, as `file: "specifier" (why)`. */
function refusedImports(files: readonly string[], refuse: Refusal): string[] {
  return files.flatMap((file) =>
    importsOf(file).flatMap((imported) => {
      const why = refuse(file, imported);
      return why === undefined ? [] : [`${relative(".", file)}: "${imported.specifier}" (${why})`];
    }),
  );
}

const into =
  (directory: string, why: string): Refusal =>
  (_file, { target }) =>
    target !== undefined && isInside(target, directory) ? why : undefined;

describe("the layering of the library", () => {
  it("finds the layers", () => {
    expect(ENTRIES).toContain(folder("index.ts"));
    expect(ENTRIES).toContain(folder("events", "index.ts"));
    for (const directory of [HTTP, SCIM, STORE, AUTH, AUDIT, TESTKIT]) expect(filesIn(directory).length).toBeGreaterThan(3);
    for (const file of BOTTOM) expect(ALL).toContain(file);
  });

  // (a) The store is under http: an adapter or contract that needs an HTTP file means a contract is in the wrong layer.
  it("src/store imports nothing of src/http", () => {
    expect(refusedImports(filesIn(STORE, ALL), into(HTTP, "the store is under http: move the contract down"))).toEqual([]);
  });

  // (b) The protocol core is pure (DESIGN §2: "no I/O"), so `scimkit/core` runs anywhere and its tests need no server or database.
  it("nothing in src/scim does I/O: no fs, net, http(s), child processes, dgram, dns, workers, pg, better-sqlite3, express, src/http or src/store", () => {
    const refuse: Refusal = (file, imported) => {
      if (imported.target === undefined) return IO_MODULES.has(moduleOf(imported.specifier)) ? "I/O" : undefined;
      return into(HTTP, "HTTP")(file, imported) ?? into(STORE, "storage")(file, imported);
    };
    expect(refusedImports(filesIn(SCIM, ALL), refuse)).toEqual([]);
  });

  // (c) A cycle makes the load order decide which module sees the other half-initialized, and
  // ties files that should change apart. Cycles are looked for across all of src/, so one that
  // leaves src/http and comes back counts too.
  it("no file in src/http is in an import cycle", () => {
    const cycles = importCycles(ALL)
      .filter((cycle) => cycle.some((file) => isInside(file, HTTP)))
      .map((cycle) => {
        const members = new Set(cycle);
        return cycle
          .flatMap((file) =>
            importsOf(file)
              .filter(({ target }) => target !== undefined && members.has(target))
              .map(({ specifier }) => `${relative(".", file)}: "${specifier}"`),
          )
          .join("; ");
      });
    expect(cycles).toEqual([]);
  });

  // (d) The library ships for app developers and adapter authors; the service is a separate
  // product built on it (issue 28), with its own dependencies (ajv).
  it("nothing in the library imports the service (server/, @scimkit/server) or its validator (ajv)", () => {
    const refuse: Refusal = (_file, { specifier, target }) => {
      if (target === undefined)
        return ["@scimkit/server", "ajv", "ajv-formats"].includes(packageOf(specifier)) ? "the service's" : undefined;
      return isInside(target, SERVICE) ? "the service" : undefined;
    };
    expect(refusedImports(LIBRARY, refuse)).toEqual([]);
  });
});

/**
 * DESIGN §2 as it holds: http on top; store, auth, audit, testkit and the other feature folders
 * below it; the protocol core (src/scim) under those (the store's contract is written in its
 * filter AST and values); the bottom files under everything. Tests and fixtures may assemble
 * layers above their subject (a store's test runs the testkit), so these rules read the
 * production files.
 */
describe("DESIGN §2: imports point down only", () => {
  const production = LIBRARY.filter(isProduction);

  it("only src/http imports express (of the library; the service's apps do too)", () => {
    const refuse: Refusal = (file, { specifier, target }) =>
      target === undefined && moduleOf(specifier) === "express" && !isInside(file, HTTP) ? "Express is the http layer's" : undefined;
    expect(refusedImports(LIBRARY, refuse)).toEqual([]);
  });

  it("nothing below src/http imports it: only the entries re-export it", () => {
    const below = production.filter((file) => !isInside(file, HTTP) && !ENTRIES.includes(file));
    expect(refusedImports(below, into(HTTP, "http is the top layer of the library"))).toEqual([]);
  });

  it("src/scim imports only src/scim and the bottom files", () => {
    const refuse: Refusal = (_file, { target }) =>
      target === undefined || isInside(target, SCIM) || isBottom(target) ? undefined : "the protocol core is under every other layer";
    expect(refusedImports(filesIn(SCIM, production), refuse)).toEqual([]);
  });

  it("src/auth and src/audit import nothing of the library but their own files and the bottom files", () => {
    const refuse: Refusal = (file, { target }) => {
      if (target === undefined || isBottom(target)) return undefined;
      const own = isInside(file, AUTH) ? AUTH : AUDIT;
      return isInside(target, own) ? undefined : "a contract folder under every layer but the bottom";
    };
    expect(refusedImports([...filesIn(AUTH, production), ...filesIn(AUDIT, production)], refuse)).toEqual([]);
  });

  it("src/store imports nothing of src/testkit: the testkit tests stores, stores never run it", () => {
    expect(refusedImports(filesIn(STORE, production), into(TESTKIT, "the testkit is for tests"))).toEqual([]);
  });

  it("the bottom files import only each other", () => {
    const refuse: Refusal = (_file, { target }) =>
      target === undefined || isBottom(target) ? undefined : "the bottom files are under every layer";
    expect(refusedImports(BOTTOM, refuse)).toEqual([]);
  });
});

// The helpers above must see what a rule is about, or every rule passes vacuously.
describe("the import reader", () => {
  it("resolves relative specifiers to source files, type-only imports included", () => {
    const context = importsOf(folder("http", "request-context", "scim-request-context.ts"));
    expect(context.map(({ target }) => target)).toContain(folder("http", "resource-service", "resource-service.ts"));
    expect(context.find(({ specifier }) => specifier === "express")?.target).toBeUndefined();
    expect(moduleOf("node:fs/promises")).toBe("fs");
  });

  it("finds a cycle closed by a type-only import, and only the files in it", () => {
    const directory = mkdtempSync(join(tmpdir(), "scimkit-layering-"));
    try {
      const file = (name: string, text: string): string => {
        writeFileSync(join(directory, name), text);
        return join(directory, name);
      };
      const a = file("a.ts", 'import { b } from "./b.js";\nexport const a = b;\nexport type A = number;\n');
      const b = file("b.ts", 'import type { A } from "./a.js";\nexport const b = 1;\nexport type B = A;\n');
      const c = file("c.ts", 'import { a } from "./a.js";\n// import { c } from "./c.js";\nexport const c = a;\n');
      expect(importCycles([a, b, c])).toEqual([[a, b].sort()]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
