/**
 * The analytics store conformance kit (architecture §5, §6.6): every check of the `AnalyticsStore`
 * contract as vitest tests, run by scimkit on its memory and SQL stores and usable by anyone who
 * writes another. A store that passes it — or skips a check by name with a reason — can back
 * `createAnalyticsRouter`.
 */
import { describeConformanceKit, kitCheckNames, kitSkipProblems } from "scimkit/testkit";
import type { AnalyticsConformanceContext, AnalyticsConformanceSuite, AnalyticsStoreUnderTest } from "./analytics-conformance-test.js";
import { adminUsersSuite } from "./suites/admin-users.js";
import { campaignsSuite } from "./suites/campaigns.js";
import { concurrencySuite } from "./suites/concurrency.js";
import { feedbackSuite } from "./suites/feedback.js";
import { invitationsSuite } from "./suites/invitations.js";
import { learnersSuite } from "./suites/learners.js";
import { operationsSuite } from "./suites/operations.js";
import { organizationDeleteSuite } from "./suites/organization-delete.js";
import { organizationsSuite } from "./suites/organizations.js";
import { organizationTotalsSuite } from "./suites/organization-totals.js";
import { organizationTreeSuite } from "./suites/organization-tree.js";
import { reportJobsSuite } from "./suites/report-jobs.js";
import { simulationsSuite } from "./suites/simulations.js";
import { directorySuite } from "./suites/directory.js";
import { regionDirectorySuite } from "./suites/region-directory.js";
import { setupLinksSuite } from "./suites/setup-links.js";

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
  reportJobsSuite,
  organizationDeleteSuite,
  organizationTreeSuite,
  concurrencySuite,
  directorySuite,
  regionDirectorySuite,
  setupLinksSuite,
  organizationTotalsSuite,
];

/** Every check name of the kit: the keys `AnalyticsConformanceOptions.skip` accepts. */
export const analyticsConformanceTestNames: readonly string[] = kitCheckNames(analyticsConformanceSuites);

/** Why `skip` is unacceptable, one line per problem; empty when it is fine. */
export function checkAnalyticsSkips(skip: Readonly<Record<string, string>>): string[] {
  return kitSkipProblems(analyticsConformanceTestNames, skip, (name) => `"${name}" is not a check of the analytics conformance kit`);
}

/**
 * Registers the conformance checks of an analytics store with vitest: one `describe` per area,
 * one `it` per check. `factory` is called before every check and must give an analytics store
 * that holds nothing yet (the checks count organizations, admin users and keys), with the
 * `ResourceStore` and `TokenStore` of the same storage; `close` is called after the check.
 *
 * @example
 * // my-analytics-store.conformance.test.ts
 * import { createTokenStore } from "scimkit";
 * import { memoryAnalyticsStore } from "@scimkit/server";
 * import { describeAnalyticsStoreConformance } from "@scimkit/server/testkit";
 * import { memoryStore } from "scimkit/memory";
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

  describeConformanceKit<AnalyticsStoreUnderTest, AnalyticsConformanceContext>({
    title: `analytics store conformance: ${name}`,
    suites: analyticsConformanceSuites,
    skip,
    setUp: factory,
    tearDown: (finished) => finished.close(),
    contextOf: (current) => ({ analytics: current.analytics, resources: current.resources, tokens: current.tokens }),
  });
}
