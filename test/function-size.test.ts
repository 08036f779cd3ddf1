import { relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isFixture, isTest, typeScriptFiles } from "./import-graph.fixture.js";
import { topLevelFunctionsOf } from "./top-level-functions.fixture.js";

/**
 * No class in disguise (issue 28, point 5): a factory closure of hundreds of lines holds its state
 * where neither a stack trace nor a reader's outline can reach it. Every top-level function of the
 * production code — a `function` declaration, or a `const` bound to an arrow function or function
 * expression — stays within MAX_LINES, its JSDoc not counted. Tests and fixtures are not held to it.
 */
const MAX_LINES = 200;
const ROOTS = [resolve("src"), resolve("server/src")];

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
