/**
 * The order test files start in, for both packages' vitest configs.
 */
import { readFileSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** A test file that starts processes — a host, the CLI, a build, npm, a browser, a child script — itself or through a fixture. */
const startsProcesses = /from "node:child_process"|from "[./]*(?:[\w/.-]*\/)?(?:host-process|scimkit-cli|console-host)\.fixture\.js"/;

/**
 * Vitest's order (failed first, then the longest last time, or on a fresh clone the largest
 * file), except that files starting processes come first, in that order among themselves. They
 * are the longest files and mostly wait on their children; started last, one of them would run
 * alone at the end while the other workers have nothing left to do.
 */
export class ProcessTestsFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = new Set(sorted.filter((file) => startsProcesses.test(readFileSync(file.moduleId, "utf8"))));
    return [...sorted.filter((file) => first.has(file)), ...sorted.filter((file) => !first.has(file))];
  }
}
