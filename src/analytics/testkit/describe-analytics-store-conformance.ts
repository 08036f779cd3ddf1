/**
 * The analytics store conformance kit (DESIGN §5, §6.6): every check of the `AnalyticsStore`
 * contract as vitest tests, run by scimkit on its memory and SQL stores and usable by anyone who
 * writes another. A store that passes it — or skips a check by name with a reason — can back
 * `createAnalyticsRouter`.
 */
import { afterEach, beforeEach, describe, it } from "vitest";
import type {
  AnalyticsConformanceContext,
  AnalyticsConformanceSuite,
  AnalyticsStoreUnderTest,
} from "./analytics-conformance-test.js";
import { adminUsersSuite } from "./suites/admin-users.js";
import { campaignsSuite } from "./suites/campaigns.js";
import { concurrencySuite } from "./suites/concurrency.js";
import { feedbackSuite } from "./suites/feedback.js";
import { invitationsSuite } from "./suites/invitations.js";
import { learnersSuite } from "./suites/learners.js";
import { operationsSuite } from "./suites/operations.js";
import { organizationDeleteSuite } from "./suites/organization-delete.js";
import { organizationsSuite } from "./suites/organizations.js";
import { simulationsSuite } from "./suites/simulations.js";

/** Options of `describeAnalyticsStoreConformance`. */
export interface AnalyticsConformanceOptions {
  /**
   * Checks not to run, by name (see `analyticsConformanceTestNames`), each with the reason, which
   * is shown in the skipped test's title. An unknown name or an empty reason is an error, so a
   * typo never silently runs a check you meant to skip, and no skip goes unexplained.
   */
  readonly skip?: Readonly<Record<string, string>>;
}

/** The suites, in report order. */
export const analyticsConformanceSuites: readonly AnalyticsConformanceSuite[] = [
  organizationsSuite,
  adminUsersSuite,
  invitationsSuite,
  learnersSuite,
  campaignsSuite,
  simulationsSuite,
  feedbackSuite,
  operationsSuite,
  organizationDeleteSuite,
  concurrencySuite,
];

/** Every check name of the kit: the keys `AnalyticsConformanceOptions.skip` accepts. */
export const analyticsConformanceTestNames: readonly string[] = analyticsConformanceSuites.flatMap((suite) =>
  suite.tests.map((test) => test.name),
);

/** Why `skip` is unacceptable, one line per problem; empty when it is fine. */
export function checkAnalyticsSkips(skip: Readonly<Record<string, string>>): string[] {
  const known = new Set(analyticsConformanceTestNames);
  return Object.entries(skip).flatMap(([name, reason]) => [
    ...(known.has(name) ? [] : [`"${name}" is not a check of the analytics conformance kit`]),
    ...(reason.trim() === "" ? [`"${name}" is skipped without a reason`] : []),
  ]);
}

/**
 * Registers the conformance checks of an analytics store with vitest: one `describe` per area,
 * one `it` per check. `factory` is called before every check and must give an analytics store
 * that holds nothing yet (the checks count organizations, admin users and keys), with the
 * `ResourceStore` and `TokenStore` of the same storage; `close` is called after the check.
 *
 * @example
 * // my-analytics-store.conformance.test.ts
 * import { memoryStore } from "scimkit/memory";
 * import { createTokenStore } from "scimkit";
 * describeAnalyticsStoreConformance("memory", () => {
 *   const resources = memoryStore();
 *   const tokens = createTokenStore();
 *   const analytics = memoryAnalyticsStore({ resources, tokens });
 *   return { analytics, resources, tokens, close: async () => {} };
 * });
 */
export function describeAnalyticsStoreConformance(
  name: string,
  factory: () => AnalyticsStoreUnderTest | Promise<AnalyticsStoreUnderTest>,
  options: AnalyticsConformanceOptions = {},
): void {
  const skip = options.skip ?? {};
  const problems = checkAnalyticsSkips(skip);
  if (problems.length > 0) throw new Error(`describeAnalyticsStoreConformance(${name}): ${problems.join("; ")}`);

  describe(`analytics store conformance: ${name}`, () => {
    let current: AnalyticsStoreUnderTest | undefined;

    beforeEach(async () => {
      current = await factory();
    });

    afterEach(async () => {
      const finished = current;
      current = undefined;
      await finished?.close();
    });

    for (const suite of analyticsConformanceSuites) {
      describe(suite.title, () => {
        for (const test of suite.tests) {
          const run = async (): Promise<void> => {
            if (!current) throw new Error("The store was not created (see the beforeEach failure)");
            const context: AnalyticsConformanceContext = {
              analytics: current.analytics,
              resources: current.resources,
              tokens: current.tokens,
            };
            await test.run(context);
          };
          const reason = skip[test.name];
          if (reason === undefined) it(test.name, run, test.timeoutMs);
          else it.skip(`${test.name} [skipped: ${reason}]`, run);
        }
      });
    }
  });
}
