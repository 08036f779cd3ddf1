import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import ts from "typescript";

/**
 * Reading the library's imports for the tests that guard its boundaries (the analytics boundary,
 * the layering). Specifiers are read with TypeScript's own pre-processor and parser, so comments
 * and strings that look like imports do not count, while type-only imports do unless a caller
 * asks for value imports only.
 */

/** Every `.ts` file under `directory`, tests included. */
export function typeScriptFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every specifier `file` imports or re-exports from, types and dynamic `import()` included. */
export function specifiersOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map((imported) => imported.fileName);
}

/** The specifiers `file` imports or re-exports anything but types from (what loads at run time). */
export function valueImportsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) => {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const typesOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      return typesOnly ? [] : [statement.moduleSpecifier.text];
    }
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)) {
      const typesOnly =
        statement.isTypeOnly ||
        (statement.exportClause !== undefined &&
          ts.isNamedExports(statement.exportClause) &&
          statement.exportClause.elements.every((element) => element.isTypeOnly));
      return typesOnly ? [] : [statement.moduleSpecifier.text];
    }
    return [];
  });
}

export const isTest = (file: string): boolean => file.endsWith(".test.ts");
export const isFixture = (file: string): boolean => file.endsWith(".fixture.ts");
export const isInside = (path: string, directory: string): boolean => path === directory || path.startsWith(directory + sep);
export const isScimkit = (specifier: string): boolean => specifier === "scimkit" || specifier.startsWith("scimkit/");
/** The npm package a bare specifier names: `pg` for `pg/lib/x`, `@scope/name` for `@scope/name/x`. */
export const packageOf = (specifier: string): string =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? specifier);

/**
 * The source file a relative specifier of `file` names (`./x.js` is `./x.ts` under NodeNext
 * resolution), or undefined for a bare specifier (a package, a builtin, a scimkit entry).
 */
export function targetOf(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = resolve(dirname(file), specifier);
  const source = target.replace(/\.js$/, ".ts");
  if (source !== target && existsSync(source)) return source;
  if (existsSync(`${target}.ts`)) return `${target}.ts`;
  if (existsSync(join(target, "index.ts"))) return join(target, "index.ts");
  return target;
}

/** One import of a file: the specifier as written and the file it names, when relative. */
export interface ImportOf {
  /** The specifier as the importing file writes it. */
  readonly specifier: string;
  /** The absolute path of the source file it names; undefined for a package, builtin or entry. */
  readonly target: string | undefined;
}

/** Every import and re-export of `file`, type-only ones included, with the files they name. */
export function importsOf(file: string): readonly ImportOf[] {
  return specifiersOf(file).map((specifier) => ({ specifier, target: targetOf(file, specifier) }));
}

/**
 * The import cycles among `files` (types counted): each strongly connected component of more
 * than one file, or a file importing itself, as its files sorted by path. Imports of files
 * outside `files` are not followed.
 */
export function importCycles(files: readonly string[]): string[][] {
  const within = new Set(files);
  const edges = new Map(
    files.map((file) => [
      file,
      [...new Set(importsOf(file).flatMap(({ target }) => (target !== undefined && within.has(target) ? [target] : [])))],
    ]),
  );
  // Tarjan's strongly connected components, iterative so a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const root of files) {
    if (index.has(root)) continue;
    const work: { readonly file: string; edge: number }[] = [{ file: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { readonly file: string; edge: number };
      const targets = edges.get(frame.file) ?? [];
      if (frame.edge < targets.length) {
        const target = targets[frame.edge++] as string;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file) as number, index.get(target) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.file, Math.min(low.get(parent.file) as number, low.get(frame.file) as number));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      for (;;) {
        const member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
        if (member === frame.file) break;
      }
      if (component.length > 1 || (edges.get(frame.file) ?? []).includes(frame.file)) cycles.push(component.sort());
    }
  }
  return cycles;
}
