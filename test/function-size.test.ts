import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { isFixture, isTest, typeScriptFiles } from "./import-graph.fixture.js";

/**
 * No class in disguise (issue 28, point 5): a factory closure of hundreds of lines holds its state
 * where neither a stack trace nor a reader's outline can reach it. Every top-level function of the
 * production code — a `function` declaration, or a `const` bound to an arrow function or function
 * expression — stays within MAX_LINES, its JSDoc not counted. Tests and fixtures are not held to it.
 */
const MAX_LINES = 200;
const ROOTS = [resolve("src"), resolve("server/src")];

/** A top-level function of a file: its name, where it begins, and how many lines it spans. */
interface TopLevelFunction {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  readonly lines: number;
}

/** The function a top-level statement declares, with the node whose span counts, if it is one. */
function functionsOf(statement: ts.Statement): { readonly name: string; readonly node: ts.Node }[] {
  if (ts.isFunctionDeclaration(statement) && statement.body !== undefined) {
    return [{ name: statement.name?.text ?? "default", node: statement }];
  }
  if (!ts.isVariableStatement(statement)) return [];
  return statement.declarationList.declarations.flatMap((declaration) => {
    let initializer = declaration.initializer;
    // `const f = (... ) => { } as Type` and `satisfies` wrap the function; unwrap them.
    while (
      initializer !== undefined &&
      (ts.isAsExpression(initializer) || ts.isSatisfiesExpression(initializer) || ts.isParenthesizedExpression(initializer))
    ) {
      initializer = initializer.expression;
    }
    if (initializer === undefined || !(ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))) return [];
    return [{ name: ts.isIdentifier(declaration.name) ? declaration.name.text : declaration.name.getText(), node: initializer }];
  });
}

/** Every top-level function of `file`, with its line count (first to last line, JSDoc excluded). */
function topLevelFunctionsOf(file: string): TopLevelFunction[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  return source.statements.flatMap((statement) =>
    functionsOf(statement).map(({ name, node }) => {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      return { name, file, line: first + 1, lines: last - first + 1 };
    }),
  );
}

const PRODUCTION = ROOTS.flatMap((root) => typeScriptFiles(root)).filter((file) => !isTest(file) && !isFixture(file));
// Parsed once, while the file loads: a few hundred files take seconds on a busy machine.
const FUNCTIONS = PRODUCTION.flatMap(topLevelFunctionsOf);

describe("function size", () => {
  it("reads the functions it measures (a sanity check on the parser)", () => {
    expect(FUNCTIONS.length).toBeGreaterThan(500);
    expect(FUNCTIONS.some((fn) => fn.name === "createScimRouter")).toBe(true);
  });

  it(`has no top-level function over ${MAX_LINES} lines in src/ or server/src`, () => {
    const tooLong = FUNCTIONS.filter((fn) => fn.lines > MAX_LINES)
      .sort((a, b) => b.lines - a.lines)
      .map((fn) => `${relative(resolve("."), fn.file)}:${fn.line} ${fn.name} (${fn.lines} lines)`);
    expect(tooLong).toEqual([]);
  });
});
