/**
 * The harness every conformance kit runs on — scimkit's store kit, the analytics store kit, or a
 * kit of your own for an interface of yours beside them: suites of named checks as plain data,
 * skips by name with a reason (an unknown name or an empty reason is an error), and one vitest
 * `describe` per suite, one `it` per check, each against a fixture set up before it and torn down
 * after it.
 */
import { afterEach, beforeEach, describe, it, type TestContext } from "vitest";

/** One named check of a kit whose checks run against a `Context`. */
export interface KitCheck<Context> {
  /** Stable and unique across the kit: the key a user skips it by. */
  readonly name: string;
  /** The check; `test` is vitest's context, for a skip decided at run time. */
  readonly run: (context: Context, test: TestContext) => Promise<void>;
  /** A longer time limit than vitest's default, for the few checks that need one. */
  readonly timeoutMs?: number;
}

/** The checks of one area of a contract, reported under one `describe`. */
export interface KitSuite<Context> {
  readonly title: string;
  readonly tests: readonly KitCheck<Context>[];
}

/** How `describeConformanceKit` runs one kit against one implementation. */
export interface ConformanceKitRun<Fixture, Context> {
  /** The top `describe`'s title, e.g. `store conformance: memory`. */
  readonly title: string;
  /** The suites, in report order. */
  readonly suites: readonly KitSuite<Context>[];
  /** Checks not to run, by name, each with the reason shown in the skipped test's title; checked by `kitSkipProblems` first. */
  readonly skip?: Readonly<Record<string, string>>;
  /** Makes what a check runs against; called before every check. */
  readonly setUp: () => Fixture | Promise<Fixture>;
  /** Releases what `setUp` made; called after every check, failed or not. */
  readonly tearDown: (fixture: Fixture) => void | Promise<void>;
  /** The context a check gets from its fixture and vitest's test context. */
  readonly contextOf: (fixture: Fixture, test: TestContext) => Context;
}

/** Every check name of `suites`: the keys a kit's `skip` accepts. */
export function kitCheckNames<Context>(suites: readonly KitSuite<Context>[]): string[] {
  return suites.flatMap((suite) => suite.tests.map((test) => test.name));
}

/**
 * Why `skip` is unacceptable for a kit whose check names are `names`, one line per problem; empty
 * when it is fine. `unknown` words the line of a name the kit lacks.
 *
 * @example kitSkipProblems(names, { "no such check": "typo" }, (name) => `"${name}" is not a check of my kit`)
 */
export function kitSkipProblems(
  names: readonly string[],
  skip: Readonly<Record<string, string>>,
  unknown: (name: string) => string,
): string[] {
  const known = new Set(names);
  return Object.entries(skip).flatMap(([name, reason]) => [
    ...(known.has(name) ? [] : [unknown(name)]),
    ...(reason.trim() === "" ? [`"${name}" is skipped without a reason`] : []),
  ]);
}

/**
 * Registers a kit's checks with vitest: one `describe` per suite under `run.title`, one `it` per
 * check, a skipped one titled `<name> [skipped: <reason>]`. Validate `run.skip` with
 * `kitSkipProblems` before calling it.
 *
 * @example
 * describeConformanceKit({
 *   title: "billing store conformance: postgres",
 *   suites: billingSuites,
 *   setUp: () => openBillingStore(),
 *   tearDown: (store) => store.close(),
 *   contextOf: (store) => ({ store }),
 * });
 */
export function describeConformanceKit<Fixture, Context>(run: ConformanceKitRun<Fixture, Context>): void {
  const skip = run.skip ?? {};
  describe(run.title, () => {
    let current: { readonly fixture: Fixture } | undefined;

    beforeEach(async () => {
      current = { fixture: await run.setUp() };
    });

    afterEach(async () => {
      const finished = current;
      current = undefined;
      if (finished) await run.tearDown(finished.fixture);
    });

    for (const suite of run.suites) {
      describe(suite.title, () => {
        for (const test of suite.tests) {
          const check = async (testContext: TestContext): Promise<void> => {
            if (!current) throw new Error("The store was not created (see the beforeEach failure)");
            await test.run(run.contextOf(current.fixture, testContext), testContext);
          };
          const reason = skip[test.name];
          if (reason === undefined) it(test.name, check, test.timeoutMs);
          else it.skip(`${test.name} [skipped: ${reason}]`, check);
        }
      });
    }
  });
}
