import { readFileSync, writeFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Every entry point's public names — values and types — pinned in `test/fixtures/entry-points.json`,
 * so a symbol joins or leaves the package's surface only on purpose (issue 13, point 2). After an
 * intended change, rewrite it with `SCIMKIT_UPDATE_ENTRY_POINTS=1 npx vitest run test/entry-points.test.ts`
 * and read its diff: that diff is the review of the surface. The entries are cut by intent (issue 28,
 * point 2): the root is what mounting the router needs, every other feature has a subpath, and a name
 * has one home, so an app never wonders which of two imports is the real one.
 */
/** Both packages of the repository: the library at its root and the service in server/. */
const packages = ["package.json", "server/package.json"].map((file) => ({
  folder: file.replace(/package\.json$/, ""),
  manifest: JSON.parse(readFileSync(file, "utf8")) as {
    readonly name: string;
    readonly exports: Record<string, string | { readonly "scimkit-source"?: string }>;
  },
}));
const PINNED = "test/fixtures/entry-points.json";
const pinned = JSON.parse(readFileSync(PINNED, "utf8")) as Record<string, { readonly values: string[]; readonly types: string[] }>;

const sources = packages.flatMap(({ folder, manifest }) =>
  Object.entries(manifest.exports).flatMap(([subpath, target]) =>
    typeof target === "object" && target["scimkit-source"]
      ? [[`${manifest.name}${subpath.slice(1)}`, `${folder}${target["scimkit-source"].replace(/^\.\//, "")}`] as const]
      : [],
  ),
);

/** The most names, values and types together, the root entry may export: what mounting a router needs, no more. */
const MAX_ROOT_NAMES = 60;

const config = ts.getParsedCommandLineOfConfigFile("tsconfig.json", {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
if (!config) throw new Error("tsconfig.json could not be read");
const program = ts.createProgram(
  sources.map(([, file]) => file),
  config.options,
);

/** The exported names of each entry, split into values (what `import *` sees at run time) and types. */
function surface(): Record<string, { values: string[]; types: string[] }> {
  const checker = program.getTypeChecker();
  const result: Record<string, { values: string[]; types: string[] }> = {};
  for (const [name, file] of sources) {
    const sourceFile = program.getSourceFile(file);
    const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile);
    if (!moduleSymbol) throw new Error(`${file} is not a module`);
    const values: string[] = [];
    const types: string[] = [];
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      (target.flags & ts.SymbolFlags.Value ? values : types).push(exported.name);
    }
    result[name] = { values: values.sort(), types: types.sort() };
  }
  return result;
}

describe("the package's entry points", () => {
  const actual = surface();
  if (process.env["SCIMKIT_UPDATE_ENTRY_POINTS"] === "1") writeFileSync(PINNED, `${JSON.stringify(actual, null, 2)}\n`);

  it("are the ones the architecture names, each with a source and a built file", () => {
    expect(Object.keys(actual).sort()).toEqual([
      "@scimkit/server",
      "@scimkit/server/testkit",
      "scimkit",
      "scimkit/audit",
      "scimkit/body",
      "scimkit/core",
      "scimkit/cursor",
      "scimkit/events",
      "scimkit/fair-share",
      "scimkit/memory",
      "scimkit/oauth",
      "scimkit/rate-limit",
      "scimkit/request-log",
      "scimkit/sql",
      "scimkit/store",
      "scimkit/testkit",
    ]);
  });

  it(`keep the root entry to what mounting a router needs: at most ${MAX_ROOT_NAMES} names, values and types`, () => {
    const root = actual["scimkit"];
    expect(root?.values).toContain("createScimRouter");
    expect((root?.values.length ?? 0) + (root?.types.length ?? 0)).toBeLessThanOrEqual(MAX_ROOT_NAMES);
  });

  it("export each name from one entry only", () => {
    const homes = new Map<string, string[]>();
    for (const [entry, { values, types }] of Object.entries(actual)) {
      for (const name of [...values, ...types]) homes.set(name, [...(homes.get(name) ?? []), entry]);
    }
    const shared = [...homes].filter(([, entries]) => entries.length > 1).map(([name, entries]) => `${name}: ${entries.join(", ")}`);
    expect(shared).toEqual([]);
  });

  it("only re-export: an entry's file declares nothing of its own, so it may gather a feature from any layer", () => {
    const declaring = sources.flatMap(([name, file]) => {
      const sourceFile = program.getSourceFile(file);
      if (!sourceFile) throw new Error(`${file} is not in the program`);
      return sourceFile.statements
        .filter((statement) => !(ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined))
        .map((statement) => `${name} (${file}): ${statement.getText(sourceFile).split("\n")[0]}`);
    });
    expect(declaring).toEqual([]);
  });

  for (const [name, names] of Object.entries(actual)) {
    it(`${name} exports exactly its pinned names`, () => {
      expect(names, `update test/fixtures/entry-points.json if ${name} changed on purpose`).toEqual(pinned[name]);
    });
  }

  it("keep internals internal: no entry exports a name that looks like plumbing", () => {
    const all = Object.values(actual).flatMap(({ values, types }) => [...values, ...types]);
    // `lockRows` is public on purpose (scimkit/sql, for a client writing its own tables beside the store's).
    for (const internal of ["connectionTransaction", "resourceRow", "jsonRef", "chunks", "normalizeResource", "flattenInput"]) {
      expect(all, internal).not.toContain(internal);
    }
  });
});
