/**
 * Organizations: create, read, list, update, each within the scope it is given. Data outside the
 * scope is "not found", never an error (the HTTP layer renders it as the same 404).
 */
import { expect } from "vitest";
import type { Organization } from "@scimkit/server";
import { analyticsConformanceTest, type AnalyticsConformanceSuite } from "../analytics-conformance-test.js";
import { ALL, addOrganization, byId, idsOf, newId, only, readAll, rejectionOf, time, walkPages } from "./helpers.js";

export const organizationsSuite: AnalyticsConformanceSuite = {
  title: "organizations",
  tests: [
    analyticsConformanceTest("createOrganization stores an organization that getOrganization returns as given", async (context) => {
      const created = await addOrganization(context, { name: "Acme Corp", createdAt: time(3), updatedAt: time(4) });
      expect(await context.analytics.getOrganization(ALL, created.id)).toEqual(created);
      expect(await context.analytics.getOrganization(only(created.id), created.id)).toEqual(created);
    }),

    analyticsConformanceTest("createOrganization rejects an id that exists and keeps the first", async (context) => {
      const first = await addOrganization(context, { name: "First" });
      await rejectionOf(context.analytics.createOrganization({ ...first, name: "Second" }));
      expect(await context.analytics.getOrganization(ALL, first.id)).toEqual(first);
    }),

    analyticsConformanceTest("getOrganization and updateOrganization of an unknown id are undefined", async (context) => {
      const unknown = newId();
      expect(await context.analytics.getOrganization(ALL, unknown)).toBeUndefined();
      expect(await context.analytics.updateOrganization(ALL, unknown, { name: "X", updatedAt: time(9) })).toBeUndefined();
      expect(await context.analytics.deleteOrganization(ALL, unknown)).toBe(false);
      expect((await context.analytics.listOrganizations(ALL, { limit: 10 })).items).toEqual([]);
    }),

    analyticsConformanceTest("listOrganizations pages by id: limit, after, next absent on the last page", async (context) => {
      const created: Organization[] = [];
      for (let index = 0; index < 7; index += 1) created.push(await addOrganization(context, { name: `Org ${index}` }));
      const expected = byId(idsOf(created));
      const read = (page: { readonly limit: number; readonly after?: string }) => context.analytics.listOrganizations(ALL, page);
      for (const limit of [1, 3, 7, 1000]) {
        const walk = await walkPages(read, limit, (organization) => organization.id);
        expect(idsOf(walk.items), `limit ${limit}`).toEqual(expected);
        expect(walk.requests, `limit ${limit}`).toBe(Math.ceil(7 / limit));
      }
      // 6 of 7 after the first: a page that ends exactly at the end has no next.
      const exact = await context.analytics.listOrganizations(ALL, { limit: 6, after: expected[0] });
      expect(idsOf(exact.items)).toEqual(expected.slice(1));
      expect(exact.next).toBeUndefined();
      const beyond = await context.analytics.listOrganizations(ALL, { limit: 3, after: expected[6] });
      expect(beyond).toEqual({ items: [] });
      const first = await context.analytics.listOrganizations(ALL, { limit: 2 });
      expect(first.next).toBe(expected[1]);
      const full = await readAll(read);
      expect(full).toEqual(byId(idsOf(created)).map((id) => created.find((organization) => organization.id === id)));
    }),

    analyticsConformanceTest("listOrganizations filters by status", async (context) => {
      const active = await addOrganization(context);
      const suspended = await addOrganization(context, { status: "suspended" });
      const alsoActive = await addOrganization(context);
      const read = (status: "active" | "suspended") => context.analytics.listOrganizations(ALL, { limit: 10 }, { status });
      expect(idsOf((await read("active")).items)).toEqual(byId([active.id, alsoActive.id]));
      expect(idsOf((await read("suspended")).items)).toEqual([suspended.id]);
      const walk = await walkPages(
        (page) => context.analytics.listOrganizations(ALL, page, { status: "active" }),
        1,
        (o) => o.id,
      );
      expect(idsOf(walk.items)).toEqual(byId([active.id, alsoActive.id]));
    }),

    analyticsConformanceTest("an {orgIds} scope lists, gets, updates and deletes only its organizations", async (context) => {
      const mine = await addOrganization(context, { name: "Mine" });
      const alsoMine = await addOrganization(context, { name: "Also mine" });
      const theirs = await addOrganization(context, { name: "Theirs" });
      const scope = only(mine.id, alsoMine.id);
      expect(idsOf((await context.analytics.listOrganizations(scope, { limit: 10 })).items)).toEqual(byId([mine.id, alsoMine.id]));
      const paged = await walkPages(
        (page) => context.analytics.listOrganizations(scope, page),
        1,
        (o) => o.id,
      );
      expect(idsOf(paged.items)).toEqual(byId([mine.id, alsoMine.id]));
      expect(await context.analytics.getOrganization(scope, theirs.id)).toBeUndefined();
      expect(
        await context.analytics.updateOrganization(scope, theirs.id, { name: "Taken", status: "suspended", updatedAt: time(9) }),
      ).toBeUndefined();
      expect(await context.analytics.deleteOrganization(scope, theirs.id)).toBe(false);
      expect(await context.analytics.getOrganization(ALL, theirs.id)).toEqual(theirs);
      expect(await context.analytics.getOrganization(scope, mine.id)).toEqual(mine);
    }),

    analyticsConformanceTest("an empty {orgIds} scope sees no organization at all", async (context) => {
      const organization = await addOrganization(context);
      const none = only();
      expect(await context.analytics.listOrganizations(none, { limit: 10 })).toEqual({ items: [] });
      expect(await context.analytics.getOrganization(none, organization.id)).toBeUndefined();
      expect(await context.analytics.updateOrganization(none, organization.id, { name: "X", updatedAt: time(9) })).toBeUndefined();
      expect(await context.analytics.deleteOrganization(none, organization.id)).toBe(false);
      expect(await context.analytics.getOrganization(ALL, organization.id)).toEqual(organization);
    }),

    analyticsConformanceTest("updateOrganization changes the fields given and updatedAt, and nothing else", async (context) => {
      const organization = await addOrganization(context, { name: "Before" });
      const renamed = await context.analytics.updateOrganization(only(organization.id), organization.id, {
        name: "After",
        updatedAt: time(10),
      });
      expect(renamed).toEqual({ ...organization, name: "After", updatedAt: time(10) });
      const suspended = await context.analytics.updateOrganization(ALL, organization.id, { status: "suspended", updatedAt: time(11) });
      expect(suspended).toEqual({ ...organization, name: "After", status: "suspended", updatedAt: time(11) });
      expect(await context.analytics.getOrganization(ALL, organization.id)).toEqual(suspended);
    }),

    analyticsConformanceTest(
      "keeps an organization's compatibility and existingUsers settings: given on create, changed, and removed by null",
      async (context) => {
        const plain = await addOrganization(context, { name: "Plain" });
        expect(plain).not.toHaveProperty("compatibility");
        const organization = { ...(await addOrganization(context, { name: "Set" })) };
        const created = { ...organization, id: `${organization.id}-2`, compatibility: "entra", existingUsers: "link" } as const;
        await context.analytics.createOrganization(created);
        expect(await context.analytics.getOrganization(ALL, created.id)).toEqual(created);
        const changed = await context.analytics.updateOrganization(ALL, created.id, { compatibility: "strict", updatedAt: time(20) });
        expect(changed).toEqual({ ...created, compatibility: "strict", updatedAt: time(20) });
        const reset = await context.analytics.updateOrganization(ALL, created.id, {
          compatibility: null,
          existingUsers: null,
          updatedAt: time(21),
        });
        const { compatibility: _compatibility, existingUsers: _existingUsers, ...defaults } = created;
        expect(reset).toEqual({ ...defaults, updatedAt: time(21) });
        expect(await context.analytics.getOrganization(ALL, created.id)).toEqual(reset);
      },
    ),
  ],
};
