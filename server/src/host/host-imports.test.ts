/**
 * The host is an app over the library, like a user's: it reaches scimkit by name (`scimkit`,
 * `scimkit/sql`, …), which resolves to src/ from source and to dist/ once built. A relative import
 * out of src/host would compile into dist/ too, but would bypass the public entry points and hide
 * whatever they lack. Test files may use the repository's test fixtures (`*.fixture.js`), which
 * are never built.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const HOST = resolve("src/host");

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("src/host", () => {
  it("imports the library by name only, never a relative path out of src/host", () => {
    const outside: string[] = [];
    const files = sourceFiles(HOST);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const testOnly = /\.(test|fixture)\.ts$/.test(file);
      const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
      for (const { fileName } of importedFiles) {
        if (!fileName.startsWith(".")) continue;
        const target = resolve(dirname(file), fileName);
        if (!relative(HOST, target).startsWith("..")) continue;
        if (testOnly && fileName.endsWith(".fixture.js")) continue;
        outside.push(`${relative(HOST, file)} imports ${fileName}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
