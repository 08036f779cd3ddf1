/**
 * The directory (issue 18): an organization's SCIM users and groups read where they live, never
 * a copy — searched by case-insensitive prefix with pattern characters literal, keyset-paged by
 * id, a user's groups, a group's members a page at a time — and a campaign's completions per day.
 */
import { expect } from "vitest";
import type { DirectoryMember, DirectoryUser } from "@scimkit/server";
import {
  analyticsConformanceTest,
  type AnalyticsConformanceContext,
  type AnalyticsConformanceSuite,
} from "../analytics-conformance-test.js";
import { addCampaign, addGroup, addLearner, addOrganization, byId, completed, enrolment, idsOf, time, walkPages } from "./helpers.js";

async function searchUsers(context: AnalyticsConformanceContext, orgId: string, search?: string): Promise<string[]> {
  const page = await context.analytics.listDirectoryUsers(orgId, search, { limit: 1000 });
  expect(page.next).toBeUndefined();
  return idsOf(page.items);
}

export const directorySuite: AnalyticsConformanceSuite = {
  title: "directory",
  tests: [
    analyticsConformanceTest(
      "directory users are the organization's SCIM users by id, with the attributes that name them",
      async (context) => {
        const acme = await addOrganization(context);
        const other = await addOrganization(context, { name: "Other" });
        const ada = await addLearner(context, acme.id, "ada", {
          displayName: "Ada Lovelace",
          externalId: "E-1",
          name: { givenName: "Ada" },
          emails: [{ value: "ada@acme.test", type: "work" }],
        });
        const bare = await addLearner(context, acme.id, "bare", { active: false });
        await addLearner(context, other.id, "elsewhere");
        const page = await context.analytics.listDirectoryUsers(acme.id, undefined, { limit: 1000 });
        const expected: DirectoryUser[] = [
          {
            id: ada.id,
            userName: "ada",
            displayName: "Ada Lovelace",
            externalId: "E-1",
            active: true,
            name: { givenName: "Ada" },
            emails: [{ value: "ada@acme.test", type: "work" }],
          },
          { id: bare.id, userName: "bare", active: false },
        ];
        expect(page.items).toEqual(expected.sort((a, b) => (a.id < b.id ? -1 : 1)));
        expect(page.next).toBeUndefined();
      },
    ),

    analyticsConformanceTest(
      "a directory search is a case-insensitive prefix of userName, displayName or externalId, with pattern characters literal",
      async (context) => {
        const acme = await addOrganization(context);
        const ada = await addLearner(context, acme.id, "ada.lovelace", { displayName: "Countess", externalId: "HR-0001" });
        const grace = await addLearner(context, acme.id, "grace", { displayName: "Ada Admiral" });
        const percent = await addLearner(context, acme.id, "50%_off");
        // Decomposed (A + U+030A); the search is precomposed and upper-case.
        const angstrom = await addLearner(context, acme.id, "A\u030angstr\u00f6m");
        expect(byId(await searchUsers(context, acme.id, "ADA"))).toEqual(byId([ada.id, grace.id]));
        expect(await searchUsers(context, acme.id, "count")).toEqual([ada.id]);
        expect(await searchUsers(context, acme.id, "hr-0")).toEqual([ada.id]);
        expect(await searchUsers(context, acme.id, "lovelace")).toEqual([]);
        expect(await searchUsers(context, acme.id, "50%_")).toEqual([percent.id]);
        for (const pattern of ["%", "_", "5_", "*", "?", "["]) expect(await searchUsers(context, acme.id, pattern), pattern).toEqual([]);
        expect(await searchUsers(context, acme.id, "\u00c5NG")).toEqual([angstrom.id]);
      },
    ),

    analyticsConformanceTest("directory users page by id, with or without a search", async (context) => {
      const acme = await addOrganization(context);
      const ids: string[] = [];
      for (let index = 0; index < 7; index += 1) ids.push((await addLearner(context, acme.id, `user${index}`)).id);
      await addLearner(context, acme.id, "someone-else");
      const all = await walkPages(
        (page) => context.analytics.listDirectoryUsers(acme.id, undefined, page),
        3,
        (user) => user.id,
      );
      expect(all.items).toHaveLength(8);
      expect(all.requests).toBe(3);
      const searched = await walkPages(
        (page) => context.analytics.listDirectoryUsers(acme.id, "USER", page),
        2,
        (user) => user.id,
      );
      expect(idsOf(searched.items)).toEqual(byId(ids));
    }),

    analyticsConformanceTest("a directory user is as stored, without its password, with the groups that list it", async (context) => {
      const acme = await addOrganization(context);
      const ada = await addLearner(context, acme.id, "ada", { password: "Secret-1234", title: "Engineer" }, { now: time(4) });
      const bob = await addLearner(context, acme.id, "bob");
      const research = await addGroup(context, acme.id, "Research", [ada.id, bob.id]);
      const everyone = await addGroup(context, acme.id, "Everyone", [ada.id]);
      await addGroup(context, acme.id, "Others", [bob.id]);
      const user = await context.analytics.getDirectoryUser(acme.id, ada.id);
      expect(user).toMatchObject({ id: ada.id, created: time(4), lastModified: time(4), version: ada.version });
      expect(user?.attributes).toMatchObject({ userName: "ada", title: "Engineer" });
      expect(user?.attributes).not.toHaveProperty("password");
      expect(user?.groups).toEqual(
        byId([research.id, everyone.id]).map((id) => ({ id, displayName: id === research.id ? "Research" : "Everyone" })),
      );
      expect(await context.analytics.getDirectoryUser(acme.id, research.id), "a group is no user").toBeUndefined();
      const other = await addOrganization(context, { name: "Other" });
      expect(await context.analytics.getDirectoryUser(other.id, ada.id), "another organization's user").toBeUndefined();
    }),

    analyticsConformanceTest("directory groups page by id with member counts, searched by displayName prefix", async (context) => {
      const acme = await addOrganization(context);
      const ada = await addLearner(context, acme.id, "ada");
      const bob = await addLearner(context, acme.id, "bob");
      const research = await addGroup(context, acme.id, "Research", [ada.id, bob.id]);
      const nested = await addGroup(context, acme.id, "Research leads", [ada.id, research.id]);
      const empty = await addGroup(context, acme.id, "Empty");
      const all = await walkPages(
        (page) => context.analytics.listDirectoryGroups(acme.id, undefined, page),
        2,
        (group) => group.id,
      );
      const counts = new Map([
        [research.id, 2],
        [nested.id, 2],
        [empty.id, 0],
      ]);
      expect(all.items.map((group) => [group.id, group.memberCount])).toEqual(byId([...counts.keys()]).map((id) => [id, counts.get(id)]));
      const found = await context.analytics.listDirectoryGroups(acme.id, "RESEARCH", { limit: 10 });
      expect(idsOf(found.items)).toEqual(byId([research.id, nested.id]));
      expect((await context.analytics.listDirectoryGroups(acme.id, "leads", { limit: 10 })).items).toEqual([]);
    }),

    analyticsConformanceTest("a group's members page by member id, users with their userName, nested groups by name", async (context) => {
      const acme = await addOrganization(context);
      const users = [];
      for (let index = 0; index < 5; index += 1)
        users.push(await addLearner(context, acme.id, `m${index}`, { displayName: `Member ${index}` }));
      const inner = await addGroup(context, acme.id, "Inner", []);
      const group = await addGroup(context, acme.id, "Outer", [...users.map((user) => user.id), inner.id]);
      const walked = await walkPages(
        async (page) => {
          const members = await context.analytics.listGroupMembers(acme.id, group.id, page);
          if (members === undefined) throw new Error("the group was not found");
          return members;
        },
        2,
        (member) => member.id,
      );
      expect(walked.requests).toBe(3);
      const expected = new Map<string, DirectoryMember>([
        ...users.map((user, index): [string, DirectoryMember] => [
          user.id,
          { id: user.id, type: "User", display: `Member ${index}`, userName: `m${index}` },
        ]),
        [inner.id, { id: inner.id, type: "Group", display: "Inner" }],
      ]);
      expect(walked.items).toEqual(byId([...expected.keys()]).map((id) => expected.get(id)));
      expect(await context.analytics.listGroupMembers(acme.id, inner.id, { limit: 10 })).toEqual({ items: [] });
      expect(await context.analytics.listGroupMembers(acme.id, users[0]?.id ?? "", { limit: 10 }), "a user is no group").toBeUndefined();
      const other = await addOrganization(context, { name: "Other" });
      expect(await context.analytics.listGroupMembers(other.id, group.id, { limit: 10 }), "another organization's group").toBeUndefined();
    }),

    analyticsConformanceTest("a campaign's completions are counted per UTC day of completedAt, oldest first", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id);
      const users = [];
      for (let index = 0; index < 5; index += 1) users.push((await addLearner(context, acme.id, `t${index}`)).id);
      const [first = "", second = "", third = "", fourth = "", fifth = ""] = users;
      const day = (days: number, minutes = 0): string => time(days * 24 * 60 + minutes);
      await context.analytics.putEnrolment(acme.id, { ...completed(campaign.id, first), completedAt: day(2, 1) });
      await context.analytics.putEnrolment(acme.id, { ...completed(campaign.id, second), completedAt: day(0, 23 * 60 + 59) });
      await context.analytics.putEnrolment(acme.id, { ...completed(campaign.id, third), completedAt: day(2, 600) });
      await context.analytics.putEnrolment(acme.id, enrolment(campaign.id, fourth, { status: "in_progress", progressPercent: 50 }));
      await context.analytics.putEnrolment(acme.id, enrolment(campaign.id, fifth));
      expect(await context.analytics.campaignCompletionTimeline(campaign.id)).toEqual({
        days: [
          { date: "2024-01-01", completed: 1 },
          { date: "2024-01-03", completed: 2 },
        ],
        enrolled: 5,
      });
      const quiet = await addCampaign(context, acme.id);
      expect(await context.analytics.campaignCompletionTimeline(quiet.id)).toEqual({ days: [], enrolled: 0 });
    }),
  ],
};
