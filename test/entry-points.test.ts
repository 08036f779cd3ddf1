import { readFileSync, writeFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Every entry point's public names — values and types — pinned in `test/fixtures/entry-points.json`,
 * so a symbol joins or leaves the package's surface only on purpose (issue 13, point 2). After an
 * intended change, rewrite it with `SCIMKIT_UPDATE_ENTRY_POINTS=1 npx vitest run test/entry-points.test.ts`
 * and read its diff: that diff is the review of the surface.
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

/** The exported names of each entry, split into values (what `import *` sees at run time) and types. */
function surface(): Record<string, { values: string[]; types: string[] }> {
  const config = ts.getParsedCommandLineOfConfigFile("tsconfig.json", {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error("tsconfig.json could not be read");
  const program = ts.createProgram(
    sources.map(([, file]) => file),
    config.options,
  );
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
      "scimkit/core",
      "scimkit/memory",
      "scimkit/sql",
      "scimkit/store",
      "scimkit/testkit",
    ]);
  });

  for (const [name, names] of Object.entries(actual)) {
    it(`${name} exports exactly its pinned names`, () => {
      expect(names, `update test/fixtures/entry-points.json if ${name} changed on purpose`).toEqual(pinned[name]);
    });
  }

  it("keep internals internal: no entry exports a name that looks like plumbing", () => {
    const all = Object.values(actual).flatMap(({ values, types }) => [...values, ...types]);
    for (const internal of ["connectionTransaction", "lockRows", "resourceRow", "jsonRef", "chunks", "normalizeResource", "flattenInput"]) {
      expect(all, internal).not.toContain(internal);
    }
  });
});
