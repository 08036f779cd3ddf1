/**
 * The totals of the organizations a store holds (issue 30, point 5): organizations, their SCIM
 * users (of them active) and groups, all of them or all but some, and nothing of an id's SCIM
 * data without its organization.
 */
import { expect } from "vitest";
import { MAX_TOTALS_EXCEPTIONS } from "@scimkit/server";
import { analyticsConformanceTest, type AnalyticsConformanceSuite } from "../analytics-conformance-test.js";
import { addGroup, addLearner, addLearners, addOrganization, ALL, newId, rejectionOf } from "./helpers.js";

export const organizationTotalsSuite: AnalyticsConformanceSuite = {
  title: "organization totals",
  tests: [
    analyticsConformanceTest("organizationTotals of an empty store is all zero", async (context) => {
      expect(await context.analytics.organizationTotals()).toEqual({ organizations: 0, users: 0, activeUsers: 0, groups: 0 });
    }),

    analyticsConformanceTest(
      "organizationTotals counts every organization, a child as any other, with its users, active users and groups",
      async (context) => {
        const acme = await addOrganization(context, { name: "Acme" });
        const division = await addOrganization(context, { name: "Acme EMEA", parentId: acme.id });
        await addOrganization(context, { name: "Empty", status: "suspended" });
        const ada = await addLearner(context, acme.id, "ada");
        // Inactive only when `active` is false: absent counts as active, as a learner's does.
        await addLearner(context, acme.id, "bob", { active: false });
        await addLearner(context, acme.id, "cy", { active: true });
        await addLearners(context, division.id, 2);
        await addGroup(context, acme.id, "Everyone", [ada.id]);
        await addGroup(context, division.id, "Sales");
        expect(await context.analytics.organizationTotals()).toEqual({ organizations: 3, users: 5, activeUsers: 4, groups: 2 });
      },
    ),

    analyticsConformanceTest(
      "organizationTotals leaves out the organizations of except, and ids it does not hold change nothing",
      async (context) => {
        const acme = await addOrganization(context, { name: "Acme" });
        const globex = await addOrganization(context, { name: "Globex" });
        await addLearners(context, acme.id, 3);
        await addLearner(context, globex.id, "moving", { active: false });
        await addGroup(context, globex.id, "Moving");
        expect(await context.analytics.organizationTotals({ except: [globex.id, newId()] })).toEqual({
          organizations: 1,
          users: 3,
          activeUsers: 3,
          groups: 0,
        });
        expect(await context.analytics.organizationTotals({ except: [] })).toEqual({
          organizations: 2,
          users: 4,
          activeUsers: 3,
          groups: 1,
        });
      },
    ),

    analyticsConformanceTest(
      "organizationTotals counts no SCIM data under an id without its organization, and follows a delete",
      async (context) => {
        const acme = await addOrganization(context, { name: "Acme" });
        await addLearners(context, acme.id, 2);
        // SCIM data of an id the analytics store holds no organization of (a host serving it unregistered).
        const stray = newId();
        await addLearner(context, stray, "stray");
        await addGroup(context, stray, "Stray");
        expect(await context.analytics.organizationTotals()).toEqual({ organizations: 1, users: 2, activeUsers: 2, groups: 0 });
        expect(await context.analytics.deleteOrganization(ALL, acme.id)).toBe(true);
        expect(await context.analytics.organizationTotals()).toEqual({ organizations: 0, users: 0, activeUsers: 0, groups: 0 });
      },
    ),

    analyticsConformanceTest(
      "organizationTotals leaves out up to MAX_TOTALS_EXCEPTIONS organizations, and refuses more",
      async (context) => {
        await addOrganization(context);
        const except = Array.from({ length: MAX_TOTALS_EXCEPTIONS + 1 }, (_, index) => `org-${index}`);
        expect(await rejectionOf(context.analytics.organizationTotals({ except }))).toBeInstanceOf(Error);
        const most = except.slice(0, MAX_TOTALS_EXCEPTIONS);
        expect(await context.analytics.organizationTotals({ except: most })).toMatchObject({ organizations: 1 });
      },
    ),
  ],
};
