/**
 * Learners: the SCIM users of the organizations in scope, read from the resources themselves (never
 * a copy that could go stale), shaped by the rules of `Learner`, ordered by (orgId, id).
 */
import { expect } from "vitest";
import type { Learner, LearnerFilter, OrgScope } from "@scimkit/server";
import { uniqueKeys, userAttributes } from "scimkit/testkit";
import {
  analyticsConformanceTest,
  type AnalyticsConformanceContext,
  type AnalyticsConformanceSuite,
} from "../analytics-conformance-test.js";
import { ALL, addGroup, addLearner, addOrganization, byId, idsOf, inDepartment, newId, only, time, walkPages } from "./helpers.js";

async function listAll(context: AnalyticsConformanceContext, scope: OrgScope, filter: LearnerFilter = {}): Promise<Learner[]> {
  const page = await context.analytics.listLearners(scope, filter, { limit: 1000 });
  expect(page.next).toBeUndefined();
  return [...page.items];
}

/** The list position of a learner, as `PageRequest.after` takes it. */
function positionOf(learner: Learner): string {
  return `${learner.orgId}\n${learner.id}`;
}

export const learnersSuite: AnalyticsConformanceSuite = {
  title: "learners",
  tests: [
    analyticsConformanceTest("learners are derived from SCIM users: displayName, e-mail, active and department", async (context) => {
      const acme = await addOrganization(context);
      const ada = await addLearner(
        context,
        acme.id,
        "ada",
        inDepartment("Research", {
          displayName: "Ada Lovelace",
          name: { formatted: "Augusta Ada King" },
          emails: [
            { value: "ada.work@acme.test", type: "work" },
            { value: "ada@acme.test", type: "home", primary: true },
          ],
        }),
        { now: time(1) },
      );
      const grace = await addLearner(
        context,
        acme.id,
        "grace",
        {
          name: { formatted: "Grace Hopper", givenName: "Grace", familyName: "Hopper" },
          emails: [
            { value: "grace@home.test", type: "home" },
            // RFC 7643 §2.2 and §8.7.1: `emails.type` is not case-exact, so "Work" is a work address.
            { value: "grace@acme.test", type: "Work" },
            { value: "hopper@acme.test", type: "work" },
          ],
          active: true,
        },
        { now: time(2) },
      );
      const alan = await addLearner(
        context,
        acme.id,
        "alan",
        {
          name: { givenName: "Alan", familyName: "Turing" },
          emails: [
            { value: "alan@home.test", type: "home" },
            { value: "alan@other.test", type: "other" },
          ],
          active: false,
        },
        { now: time(3) },
      );
      const bare = await addLearner(context, acme.id, "bare", {}, { now: time(4) });
      const expected: Learner[] = [
        {
          id: ada.id,
          orgId: acme.id,
          userName: "ada",
          displayName: "Ada Lovelace",
          email: "ada@acme.test",
          active: true,
          department: "Research",
          createdAt: time(1),
          updatedAt: time(1),
        },
        {
          id: grace.id,
          orgId: acme.id,
          userName: "grace",
          displayName: "Grace Hopper",
          email: "grace@acme.test",
          active: true,
          createdAt: time(2),
          updatedAt: time(2),
        },
        {
          id: alan.id,
          orgId: acme.id,
          userName: "alan",
          displayName: "Alan Turing",
          email: "alan@home.test",
          active: false,
          createdAt: time(3),
          updatedAt: time(3),
        },
        { id: bare.id, orgId: acme.id, userName: "bare", active: true, createdAt: time(4), updatedAt: time(4) },
      ];
      const learners = await listAll(context, ALL);
      expect(learners).toEqual([...expected].sort((a, b) => (a.id < b.id ? -1 : 1)));
      const bareLearner = learners.find((learner) => learner.id === bare.id);
      expect(bareLearner?.displayName).toBeUndefined();
      expect(bareLearner?.email).toBeUndefined();
      expect(bareLearner?.department).toBeUndefined();
    }),

    analyticsConformanceTest(
      "a user created, updated or deleted through the ResourceStore shows up, changes and disappears",
      async (context) => {
        const acme = await addOrganization(context);
        expect(await listAll(context, ALL)).toEqual([]);
        const user = await addLearner(context, acme.id, "joan", { displayName: "Joan" }, { now: time(1) });
        expect(await listAll(context, ALL)).toEqual([
          { id: user.id, orgId: acme.id, userName: "joan", displayName: "Joan", active: true, createdAt: time(1), updatedAt: time(1) },
        ]);
        const attributes = userAttributes(
          "joan.c",
          inDepartment("Sales", { displayName: "Joan Clarke", active: false, emails: [{ value: "joan@acme.test" }] }),
        );
        await context.resources.update({
          orgId: acme.id,
          resourceType: "User",
          id: user.id,
          now: time(5),
          attributes,
          uniqueKeys: uniqueKeys("User", attributes),
          unknownMembers: "ignore",
          members: false,
        });
        expect(await listAll(context, ALL)).toEqual([
          {
            id: user.id,
            orgId: acme.id,
            userName: "joan.c",
            displayName: "Joan Clarke",
            email: "joan@acme.test",
            active: false,
            department: "Sales",
            createdAt: time(1),
            updatedAt: time(5),
          },
        ]);
        expect(await context.resources.delete({ orgId: acme.id, resourceType: "User", id: user.id, now: time(6) })).toBe(true);
        expect(await listAll(context, ALL)).toEqual([]);
      },
    ),

    analyticsConformanceTest("groups are not learners", async (context) => {
      const acme = await addOrganization(context);
      const user = await addLearner(context, acme.id, "member");
      await addGroup(context, acme.id, "Everyone", [user.id]);
      expect(idsOf(await listAll(context, ALL))).toEqual([user.id]);
    }),

    analyticsConformanceTest("listLearners orders by (orgId, id) and pages with after = orgId + newline + id", async (context) => {
      const organizations = [await addOrganization(context), await addOrganization(context), await addOrganization(context)];
      const expected: Learner[] = [];
      for (const organization of organizations) {
        for (let index = 0; index < 3; index += 1) {
          const user = await addLearner(context, organization.id, `user${index}`);
          expected.push({
            id: user.id,
            orgId: organization.id,
            userName: `user${index}`,
            active: true,
            createdAt: time(1),
            updatedAt: time(1),
          });
        }
      }
      // The empty organization in the middle of the order must not end a walk early.
      await addOrganization(context);
      expected.sort((a, b) => (a.orgId !== b.orgId ? (a.orgId < b.orgId ? -1 : 1) : a.id < b.id ? -1 : 1));
      for (const limit of [1, 2, 3, 4, 9, 1000]) {
        const walk = await walkPages((page) => context.analytics.listLearners(ALL, {}, page), limit, positionOf);
        expect(walk.items, `limit ${limit}`).toEqual(expected);
        expect(walk.requests, `limit ${limit}`).toBe(Math.ceil(9 / limit));
      }
      const first = await context.analytics.listLearners(ALL, {}, { limit: 4 });
      const fourth = expected[3];
      if (!fourth) throw new Error("unreachable");
      expect(first.next).toBe(positionOf(fourth));
      const rest = await context.analytics.listLearners(ALL, {}, { limit: 5, after: positionOf(fourth) });
      expect(rest).toEqual({ items: expected.slice(4) });
    }),

    analyticsConformanceTest(
      "listLearners filters by orgId, active and department (case-insensitive), combined with AND",
      async (context) => {
        const acme = await addOrganization(context);
        const globex = await addOrganization(context);
        const a = await addLearner(context, acme.id, "a", inDepartment("Sales"));
        const b = await addLearner(context, acme.id, "b", inDepartment("sales", { active: false }));
        const c = await addLearner(context, acme.id, "c", inDepartment("Research"));
        const d = await addLearner(context, globex.id, "d", inDepartment("SALES"));
        const e = await addLearner(context, globex.id, "e", { active: false });
        const ids = async (filter: LearnerFilter) => idsOf(await listAll(context, ALL, filter));
        const inOrder = (acmeIds: string[], globexIds: string[]) =>
          acme.id < globex.id ? [...byId(acmeIds), ...byId(globexIds)] : [...byId(globexIds), ...byId(acmeIds)];
        expect(await ids({ orgId: acme.id })).toEqual(byId([a.id, b.id, c.id]));
        expect(await ids({ active: false })).toEqual(inOrder([b.id], [e.id]));
        expect(await ids({ active: true })).toEqual(inOrder([a.id, c.id], [d.id]));
        expect(await ids({ department: "Sales" })).toEqual(inOrder([a.id, b.id], [d.id]));
        expect(await ids({ department: "sAlEs", orgId: acme.id })).toEqual(byId([a.id, b.id]));
        expect(await ids({ department: "sales", active: true })).toEqual(inOrder([a.id], [d.id]));
        expect(await ids({ department: "Sale" })).toEqual([]);
        expect(await ids({ orgId: newId() })).toEqual([]);
        const walk = await walkPages((page) => context.analytics.listLearners(ALL, { department: "SALES" }, page), 1, positionOf);
        expect(idsOf(walk.items)).toEqual(inOrder([a.id, b.id], [d.id]));
      },
    ),

    analyticsConformanceTest("an {orgIds} scope lists only its organizations' learners; an empty one lists none", async (context) => {
      const acme = await addOrganization(context);
      const globex = await addOrganization(context);
      const mine = await addLearner(context, acme.id, "mine");
      const theirs = await addLearner(context, globex.id, "theirs");
      expect(idsOf(await listAll(context, only(acme.id)))).toEqual([mine.id]);
      expect(idsOf(await listAll(context, only(acme.id), { orgId: globex.id }))).toEqual([]);
      expect(idsOf(await listAll(context, only(globex.id), { orgId: globex.id }))).toEqual([theirs.id]);
      expect(await context.analytics.listLearners(only(), {}, { limit: 10 })).toEqual({ items: [] });
      expect(await context.analytics.listLearners(only(), { orgId: acme.id }, { limit: 10 })).toEqual({ items: [] });
      // A position in another organization does not open it up.
      const after = await context.analytics.listLearners(only(acme.id), {}, { limit: 10, after: `${globex.id}\n${newId()}` });
      expect(idsOf(after.items)).not.toContain(theirs.id);
    }),

    analyticsConformanceTest("the same SCIM id in two organizations is two learners, each in its own scope", async (context) => {
      const acme = await addOrganization(context);
      const globex = await addOrganization(context);
      const id = newId();
      await addLearner(context, acme.id, "ada", {}, { id });
      await addLearner(context, globex.id, "mallory", {}, { id });
      const both = await listAll(context, ALL);
      expect(both.map((learner) => [learner.orgId, learner.userName])).toEqual(
        byId([acme.id, globex.id]).map((orgId) => [orgId, orgId === acme.id ? "ada" : "mallory"]),
      );
      expect((await listAll(context, only(acme.id))).map((learner) => learner.userName)).toEqual(["ada"]);
      const walk = await walkPages((page) => context.analytics.listLearners(ALL, {}, page), 1, positionOf);
      expect(walk.items).toEqual(both);
    }),

    analyticsConformanceTest("SCIM users of an organization the analytics store does not know are not learners", async (context) => {
      const known = await addOrganization(context);
      const learner = await addLearner(context, known.id, "known");
      const unregistered = newId();
      await addLearner(context, unregistered, "stranger");
      expect(idsOf(await listAll(context, ALL))).toEqual([learner.id]);
      expect(await listAll(context, only(unregistered))).toEqual([]);
      expect(await listAll(context, ALL, { orgId: unregistered })).toEqual([]);
    }),
  ],
};
