/**
 * Admin users and API keys: e-mail uniqueness regardless of case, scoping by shared
 * organizations, paging and filters, and keys stored and found only by their digest. And
 * invitations of an e-mail that is an admin user's the inviter may not see (issue 27): pending
 * offers listed as invited admin users, whose grants join that admin user's when accepted.
 */
import { expect } from "vitest";
import type { AdminUser, AnalyticsStore, GrantOptions, OrgScope } from "@scimkit/server";
import {
  analyticsConformanceTest,
  type AnalyticsConformanceContext,
  type AnalyticsConformanceSuite,
} from "../analytics-conformance-test.js";
import {
  ALL,
  addAdminUser,
  addOrganization,
  apiKey,
  byId,
  expectConflict,
  idsOf,
  newId,
  only,
  randomHash,
  rejectionOf,
  time,
  walkPages,
} from "./helpers.js";

/** An invitation as the HTTP layer makes one: a fresh id, `invited`, expiring at minute 100. */
function invited(email: string, organizationIds: readonly string[], overrides: Partial<AdminUser> = {}): AdminUser {
  return {
    id: newId(),
    email,
    role: "admin",
    organizationIds,
    status: "invited",
    invitedAt: time(1),
    invitationExpiresAt: time(100),
    updatedAt: time(1),
    ...overrides,
  };
}

/** `inviteAdminUser` of `user` by a caller of `scope`; the outcome and the code's digest. */
async function invite(
  context: AnalyticsConformanceContext,
  scope: OrgScope,
  user: AdminUser,
  options: GrantOptions = {},
): Promise<{ readonly outcome: Awaited<ReturnType<AnalyticsStore["inviteAdminUser"]>>; readonly codeHash: string }> {
  const codeHash = randomHash();
  const outcome = await context.analytics.inviteAdminUser(scope, user, { codeHash, expiresAt: time(100) }, options);
  return { outcome, codeHash };
}

/** The `code` of the error `operation` rejects with. */
async function rejectionCode(operation: Promise<unknown>): Promise<unknown> {
  return ((await rejectionOf(operation)) as { readonly code?: unknown }).code;
}

export const adminUsersSuite: AnalyticsConformanceSuite = {
  title: "admin users and keys",
  tests: [
    analyticsConformanceTest("createAdminUser stores the user; getAdminUser and findAdminUserByEmail return it", async (context) => {
      const acme = await addOrganization(context);
      const { user } = await addAdminUser(context, { email: "ada@example.test", role: "viewer", organizationIds: [acme.id] });
      expect(await context.analytics.getAdminUser(ALL, user.id)).toEqual(user);
      expect(await context.analytics.getAdminUser(only(acme.id), user.id)).toEqual(user);
      expect(await context.analytics.findAdminUserByEmail("ada@example.test")).toEqual(user);
      expect(await context.analytics.findAdminUserByEmail("nobody@example.test")).toBeUndefined();
      expect(await context.analytics.getAdminUser(ALL, newId())).toBeUndefined();
    }),

    analyticsConformanceTest("organizationIds are kept sorted", async (context) => {
      const [first, second, third] = byId(
        idsOf([await addOrganization(context), await addOrganization(context), await addOrganization(context)]),
      );
      if (!first || !second || !third) throw new Error("unreachable");
      const { user } = await addAdminUser(context, { organizationIds: [third, first] });
      expect((await context.analytics.getAdminUser(ALL, user.id))?.organizationIds).toEqual([first, third]);
      const updated = await context.analytics.updateAdminUser(ALL, user.id, { organizationIds: [second, first], updatedAt: time(5) });
      expect(updated?.organizationIds).toEqual([first, second]);
    }),

    analyticsConformanceTest("e-mail addresses are unique regardless of case and stored lower-cased", async (context) => {
      const { user } = await addAdminUser(context, { email: "grace@example.test" });
      await expectConflict(addAdminUser(context, { email: "grace@example.test" }));
      await expectConflict(addAdminUser(context, { email: "Grace@Example.TEST" }));
      expect(await context.analytics.findAdminUserByEmail("GRACE@example.test")).toEqual(user);
      const { user: mixed } = await addAdminUser(context, { email: "Alan@Example.test" });
      const stored = await context.analytics.getAdminUser(ALL, mixed.id);
      expect(stored?.email).toBe("alan@example.test");
      expect((await context.analytics.findAdminUserByEmail("alan@example.test"))?.id).toBe(mixed.id);
      expect((await context.analytics.listAdminUsers(ALL, { limit: 10 })).items).toHaveLength(2);
    }),

    analyticsConformanceTest("listAdminUsers pages by id: limit, after, next absent on the last page", async (context) => {
      const users: AdminUser[] = [];
      for (let index = 0; index < 5; index += 1) users.push((await addAdminUser(context)).user);
      const expected = byId(idsOf(users));
      for (const limit of [1, 2, 5]) {
        const walk = await walkPages(
          (page) => context.analytics.listAdminUsers(ALL, page),
          limit,
          (user) => user.id,
        );
        expect(idsOf(walk.items), `limit ${limit}`).toEqual(expected);
        expect(walk.requests, `limit ${limit}`).toBe(Math.ceil(5 / limit));
      }
      const walk = await walkPages(
        (page) => context.analytics.listAdminUsers(ALL, page),
        5,
        (user) => user.id,
      );
      expect(walk.items).toEqual(expected.map((id) => users.find((user) => user.id === id)));
    }),

    analyticsConformanceTest("listAdminUsers filters by status, role and orgId, combined", async (context) => {
      const acme = await addOrganization(context);
      const globex = await addOrganization(context);
      const a = (await addAdminUser(context, { role: "admin", status: "active", organizationIds: [acme.id] })).user;
      const b = (await addAdminUser(context, { role: "viewer", status: "active", organizationIds: [acme.id, globex.id] })).user;
      const c = (await addAdminUser(context, { role: "viewer", organizationIds: [globex.id] })).user;
      const d = (await addAdminUser(context, { role: "admin", status: "disabled", organizationIds: [] })).user;
      const list = async (filter: Parameters<typeof context.analytics.listAdminUsers>[2]) =>
        idsOf((await context.analytics.listAdminUsers(ALL, { limit: 10 }, filter)).items);
      expect(await list({ status: "active" })).toEqual(byId([a.id, b.id]));
      expect(await list({ status: "invited" })).toEqual([c.id]);
      expect(await list({ role: "admin" })).toEqual(byId([a.id, d.id]));
      expect(await list({ orgId: globex.id })).toEqual(byId([b.id, c.id]));
      expect(await list({ orgId: acme.id, role: "viewer" })).toEqual([b.id]);
      expect(await list({ orgId: acme.id, status: "invited" })).toEqual([]);
      expect(await list({})).toEqual(byId([a.id, b.id, c.id, d.id]));
    }),

    analyticsConformanceTest(
      "an {orgIds} scope sees, updates and deletes only admin users sharing an organization with it",
      async (context) => {
        const acme = await addOrganization(context);
        const globex = await addOrganization(context);
        const initech = await addOrganization(context);
        const acmeOnly = (await addAdminUser(context, { organizationIds: [acme.id] })).user;
        const both = (await addAdminUser(context, { organizationIds: [acme.id, globex.id] })).user;
        const globexOnly = (await addAdminUser(context, { organizationIds: [globex.id] })).user;
        const none = (await addAdminUser(context, { organizationIds: [] })).user;
        const scope = only(acme.id, initech.id);
        const visible = idsOf((await context.analytics.listAdminUsers(scope, { limit: 10 })).items);
        expect(visible).toEqual(byId([acmeOnly.id, both.id]));
        const paged = await walkPages(
          (page) => context.analytics.listAdminUsers(scope, page),
          1,
          (user) => user.id,
        );
        expect(idsOf(paged.items)).toEqual(visible);
        expect(idsOf((await context.analytics.listAdminUsers(scope, { limit: 10 }, { orgId: globex.id })).items)).toEqual([both.id]);
        for (const hidden of [globexOnly, none]) {
          expect(await context.analytics.getAdminUser(scope, hidden.id)).toBeUndefined();
          expect(await context.analytics.updateAdminUser(scope, hidden.id, { role: "viewer", updatedAt: time(9) })).toBeUndefined();
          expect(await context.analytics.deleteAdminUser(scope, hidden.id)).toBe(false);
          expect(await context.analytics.getAdminUser(ALL, hidden.id)).toEqual(hidden);
        }
        expect(await context.analytics.getAdminUser(scope, both.id)).toEqual(both);
        expect(await context.analytics.listAdminUsers(only(), { limit: 10 })).toEqual({ items: [] });
        expect(await context.analytics.getAdminUser(only(), acmeOnly.id)).toBeUndefined();
        expect(idsOf((await context.analytics.listAdminUsers(ALL, { limit: 10 })).items)).toEqual(
          byId([acmeOnly.id, both.id, globexOnly.id, none.id]),
        );
      },
    ),

    analyticsConformanceTest("updateAdminUser changes role, organizationIds and status and nothing else", async (context) => {
      const acme = await addOrganization(context);
      const { user } = await addAdminUser(context, { organizationIds: [acme.id], status: "active", activatedAt: time(2) });
      const updated = await context.analytics.updateAdminUser(only(acme.id), user.id, { role: "viewer", updatedAt: time(10) });
      expect(updated).toEqual({ ...user, role: "viewer", updatedAt: time(10) });
      const disabled = await context.analytics.updateAdminUser(ALL, user.id, {
        status: "disabled",
        organizationIds: [],
        updatedAt: time(11),
      });
      expect(disabled).toEqual({ ...user, role: "viewer", status: "disabled", organizationIds: [], updatedAt: time(11) });
      expect(await context.analytics.getAdminUser(ALL, user.id)).toEqual(disabled);
      expect(await context.analytics.getAdminUser(only(acme.id), user.id)).toBeUndefined();
      expect(await context.analytics.updateAdminUser(ALL, newId(), { role: "admin", updatedAt: time(12) })).toBeUndefined();
    }),

    analyticsConformanceTest("deleteAdminUser removes the user and its keys and frees its e-mail", async (context) => {
      const { user } = await addAdminUser(context, { email: "leaving@example.test", status: "active" });
      const { user: other } = await addAdminUser(context, { status: "active" });
      const key = apiKey({ kind: "admin", adminUserId: user.id });
      const otherKey = apiKey({ kind: "admin", adminUserId: other.id });
      await context.analytics.insertApiKey(key);
      await context.analytics.insertApiKey(otherKey);
      expect(await context.analytics.deleteAdminUser(ALL, user.id)).toBe(true);
      expect(await context.analytics.getAdminUser(ALL, user.id)).toBeUndefined();
      expect(await context.analytics.findAdminUserByEmail("leaving@example.test")).toBeUndefined();
      expect(await context.analytics.findApiKeyByHash(key.hash)).toBeUndefined();
      expect(await context.analytics.findApiKeyByHash(otherKey.hash)).toEqual(otherKey);
      expect(await context.analytics.deleteAdminUser(ALL, user.id)).toBe(false);
      const { user: again } = await addAdminUser(context, { email: "leaving@example.test" });
      expect((await context.analytics.findAdminUserByEmail("leaving@example.test"))?.id).toBe(again.id);
    }),

    analyticsConformanceTest(
      "inviteAdminUser: a new e-mail makes an admin user, one the scope sees is taken, one it does not see becomes an offer listed, read, changed and deleted as an invited admin user",
      async (context) => {
        const acme = await addOrganization(context);
        const globex = await addOrganization(context);
        const { user: holder } = await addAdminUser(context, {
          email: "held@example.test",
          status: "active",
          organizationIds: [globex.id],
        });
        const fresh = invited("fresh@example.test", [acme.id]);
        expect((await invite(context, only(acme.id), fresh)).outcome).toEqual({ stored: "admin-user" });
        const offer = invited("Held@Example.test", [acme.id], { role: "viewer" });
        expect((await invite(context, only(acme.id), offer)).outcome).toEqual({ stored: "offer" });
        const entry = { ...offer, email: "held@example.test" };

        // Listed and read as an invited admin user wherever the same invitation of a new e-mail would be.
        expect(await context.analytics.getAdminUser(only(acme.id), offer.id)).toEqual(entry);
        expect(await context.analytics.getAdminUser(ALL, offer.id)).toEqual(entry);
        expect(await context.analytics.getAdminUser(only(globex.id), offer.id)).toBeUndefined();
        expect((await context.analytics.listAdminUsers(only(acme.id), { limit: 10 })).items).toEqual(
          [{ ...fresh }, entry].sort((a, b) => (a.id < b.id ? -1 : 1)),
        );
        const list = async (scope: OrgScope, filter: Parameters<AnalyticsStore["listAdminUsers"]>[2]) =>
          idsOf((await context.analytics.listAdminUsers(scope, { limit: 10 }, filter)).items);
        expect(await list(only(acme.id), { status: "invited", role: "viewer", orgId: acme.id })).toEqual([offer.id]);
        expect(await list(only(acme.id), { status: "active" })).toEqual([]);
        expect(await list(only(globex.id), {})).toEqual([holder.id]);
        const walk = await walkPages(
          (page) => context.analytics.listAdminUsers(ALL, page),
          1,
          (user) => user.id,
        );
        expect(idsOf(walk.items)).toEqual(byId([holder.id, fresh.id, offer.id]));
        // The e-mail stays the admin user's.
        expect(await context.analytics.findAdminUserByEmail("held@example.test")).toEqual(holder);

        // Inviting again: whatever the scope sees holds the e-mail, nothing stored.
        expect((await invite(context, only(acme.id), invited("held@example.test", [acme.id]))).outcome).toEqual({ taken: entry });
        expect((await invite(context, only(acme.id), invited("fresh@example.test", [acme.id]))).outcome).toEqual({ taken: fresh });
        expect((await invite(context, ALL, invited("held@example.test", [acme.id]))).outcome).toEqual({ taken: holder });
        expect((await invite(context, only(globex.id), invited("fresh@example.test", [globex.id]))).outcome).toEqual({
          stored: "offer",
        });

        // Changed as an invited admin user; it stays invited.
        const changed = await context.analytics.updateAdminUser(only(acme.id), offer.id, {
          role: "admin",
          status: "active",
          updatedAt: time(5),
        });
        expect(changed).toEqual({ ...entry, role: "admin", updatedAt: time(5) });
        expect(await context.analytics.getAdminUser(ALL, offer.id)).toEqual(changed);
        expect(await context.analytics.updateAdminUser(only(globex.id), offer.id, { role: "viewer", updatedAt: time(6) })).toBeUndefined();
        expect(await context.analytics.deleteAdminUser(only(globex.id), offer.id)).toBe(false);
        expect(await context.analytics.deleteAdminUser(only(acme.id), offer.id)).toBe(true);
        expect(await context.analytics.getAdminUser(ALL, offer.id)).toBeUndefined();
        expect(await context.analytics.deleteAdminUser(only(acme.id), offer.id)).toBe(false);
        expect(await context.analytics.getAdminUser(ALL, holder.id)).toEqual(holder);
      },
    ),

    analyticsConformanceTest(
      "inviteAdminUser refuses grants beyond its grantor's alike for a new e-mail and for an admin user's, storing nothing",
      async (context) => {
        const acme = await addOrganization(context);
        const globex = await addOrganization(context);
        const { user: grantor } = await addAdminUser(context, { status: "active", organizationIds: [acme.id] });
        await addAdminUser(context, { email: "held@example.test", status: "active", organizationIds: [globex.id] });
        for (const email of ["new@example.test", "held@example.test"]) {
          const user = invited(email, [acme.id], { subtreeOrganizationIds: [acme.id] });
          expect(await rejectionCode(invite(context, only(acme.id), user, { grantedBy: grantor.id })), email).toBe("grant-beyond-scope");
          expect(await context.analytics.getAdminUser(ALL, user.id), email).toBeUndefined();
        }
        expect(idsOf((await context.analytics.listAdminUsers(only(acme.id), { limit: 10 })).items)).toEqual([grantor.id]);
      },
    ),

    analyticsConformanceTest(
      "acceptInvitationOffer adds the offered grants to the admin user with the e-mail, stores no key and consumes the code; with no such admin user the offer becomes one with the key",
      async (context) => {
        const acme = await addOrganization(context);
        const globex = await addOrganization(context);
        const { user: holder } = await addAdminUser(context, {
          email: "held@example.test",
          role: "viewer",
          status: "active",
          activatedAt: time(0),
          organizationIds: [globex.id],
        });
        const offer = invited("held@example.test", [acme.id], { subtreeOrganizationIds: [acme.id] });
        const { codeHash } = await invite(context, only(acme.id), offer);
        const key = apiKey({ kind: "admin", adminUserId: offer.id }, time(10));
        expect(await context.analytics.acceptInvitation(codeHash, time(10), key)).toBeUndefined();
        expect(await context.analytics.acceptInvitationOffer(randomHash(), time(10), key)).toBeUndefined();
        expect(await context.analytics.acceptInvitationOffer(codeHash, time(100), key)).toBeUndefined();
        // A viewer taking an admin offer stays a viewer: never more than it was offered.
        const merged: AdminUser = {
          ...holder,
          organizationIds: byId([acme.id, globex.id]),
          subtreeOrganizationIds: [acme.id],
          updatedAt: time(10),
        };
        expect(await context.analytics.acceptInvitationOffer(codeHash, time(10), key)).toEqual({ adminUser: merged, keyStored: false });
        expect(await context.analytics.getAdminUser(ALL, holder.id)).toEqual(merged);
        expect(await context.analytics.getAdminUser(ALL, offer.id)).toBeUndefined();
        expect(await context.analytics.findApiKeyByHash(key.hash)).toBeUndefined();
        expect(await context.analytics.acceptInvitationOffer(codeHash, time(11), key)).toBeUndefined();

        // The e-mail is no one's by the time the offer is taken: the offer becomes the admin user.
        const { user: leaving } = await addAdminUser(context, {
          email: "leaving@example.test",
          status: "active",
          organizationIds: [globex.id],
        });
        const second = invited("leaving@example.test", [acme.id]);
        const secondCode = (await invite(context, only(acme.id), second)).codeHash;
        expect(await context.analytics.deleteAdminUser(ALL, leaving.id)).toBe(true);
        const secondKey = apiKey({ kind: "admin", adminUserId: second.id }, time(20));
        const { invitationExpiresAt: _pending, ...rest } = second;
        const created: AdminUser = { ...rest, status: "active", activatedAt: time(20), updatedAt: time(20) };
        expect(await context.analytics.acceptInvitationOffer(secondCode, time(20), secondKey)).toEqual({
          adminUser: created,
          keyStored: true,
        });
        expect(await context.analytics.findAdminUserByEmail("leaving@example.test")).toEqual(created);
        expect(await context.analytics.findApiKeyByHash(secondKey.hash)).toEqual(secondKey);
      },
    ),

    analyticsConformanceTest(
      "acceptInvitationOffer refuses, the offer still pending, a viewer offer to an admin and grants beyond what its offerer holds when it is taken",
      async (context) => {
        const acme = await addOrganization(context);
        const globex = await addOrganization(context);
        const { user: offerer } = await addAdminUser(context, { status: "active", organizationIds: [acme.id] });
        const { user: holder } = await addAdminUser(context, {
          email: "held@example.test",
          status: "active",
          organizationIds: [globex.id],
        });
        const offer = invited("held@example.test", [acme.id], { role: "viewer" });
        const { codeHash } = await invite(context, only(acme.id), offer, { grantedBy: offerer.id });
        const key = apiKey({ kind: "admin", adminUserId: offer.id }, time(10));
        await expectConflict(context.analytics.acceptInvitationOffer(codeHash, time(10), key));
        expect(await context.analytics.updateAdminUser(only(acme.id), offer.id, { role: "admin", updatedAt: time(11) })).toMatchObject({
          role: "admin",
        });
        // The offerer no longer holds acme: the grant would be beyond it.
        await context.analytics.updateAdminUser(ALL, offerer.id, { organizationIds: [], updatedAt: time(12) });
        expect(await rejectionCode(context.analytics.acceptInvitationOffer(codeHash, time(13), key))).toBe("grant-beyond-scope");
        expect(await context.analytics.getAdminUser(ALL, holder.id)).toEqual(holder);
        expect((await context.analytics.getAdminUser(ALL, offer.id))?.status).toBe("invited");
        await context.analytics.updateAdminUser(ALL, offerer.id, { organizationIds: [acme.id], updatedAt: time(14) });
        expect((await context.analytics.acceptInvitationOffer(codeHash, time(15), key))?.adminUser.organizationIds).toEqual(
          byId([acme.id, globex.id]),
        );
      },
    ),

    analyticsConformanceTest("deleteOrganization strips the organization from pending offers", async (context) => {
      const acme = await addOrganization(context);
      const globex = await addOrganization(context);
      await addAdminUser(context, { email: "held@example.test", status: "active", organizationIds: [] });
      const offer = invited("held@example.test", [acme.id, globex.id]);
      await invite(context, only(acme.id), offer);
      expect(await context.analytics.deleteOrganization(ALL, globex.id)).toBe(true);
      expect(await context.analytics.getAdminUser(ALL, offer.id)).toEqual({ ...offer, organizationIds: [acme.id] });
    }),

    analyticsConformanceTest("insertApiKey and findApiKeyByHash round-trip; a digest is unique", async (context) => {
      const { user } = await addAdminUser(context, { status: "active" });
      const operator = apiKey({ kind: "operator" }, time(1));
      const admin = apiKey({ kind: "admin", adminUserId: user.id }, time(2));
      await context.analytics.insertApiKey(operator);
      await context.analytics.insertApiKey(admin);
      expect(await context.analytics.findApiKeyByHash(operator.hash)).toEqual(operator);
      expect(await context.analytics.findApiKeyByHash(admin.hash)).toEqual(admin);
      expect(await context.analytics.findApiKeyByHash("0".repeat(64))).toBeUndefined();
      await rejectionOf(context.analytics.insertApiKey({ ...apiKey({ kind: "operator" }), hash: admin.hash }));
      expect(await context.analytics.findApiKeyByHash(admin.hash)).toEqual(admin);
    }),

    analyticsConformanceTest("replaceApiKey swaps a key for another atomically, and does nothing for an unknown id", async (context) => {
      const old = apiKey({ kind: "operator" }, time(1));
      const other = apiKey({ kind: "operator" }, time(1));
      await context.analytics.insertApiKey(old);
      await context.analytics.insertApiKey(other);
      const next = apiKey({ kind: "operator" }, time(2));
      expect(await context.analytics.replaceApiKey(old.id, next)).toBe(true);
      expect(await context.analytics.findApiKeyByHash(old.hash)).toBeUndefined();
      expect(await context.analytics.findApiKeyByHash(next.hash)).toEqual(next);
      expect(await context.analytics.findApiKeyByHash(other.hash)).toEqual(other);
      const unused = apiKey({ kind: "operator" }, time(3));
      expect(await context.analytics.replaceApiKey(old.id, unused)).toBe(false);
      expect(await context.analytics.findApiKeyByHash(unused.hash)).toBeUndefined();
      await rejectionOf(context.analytics.replaceApiKey(next.id, { ...apiKey({ kind: "operator" }), hash: other.hash }));
      expect(await context.analytics.findApiKeyByHash(next.hash)).toEqual(next);
    }),

    analyticsConformanceTest(
      "replaceOperatorKeys stores one operator key in place of all the others, keeps admin keys, and changes nothing when it rejects",
      async (context) => {
        const { user } = await addAdminUser(context, { status: "active" });
        const admin = apiKey({ kind: "admin", adminUserId: user.id }, time(1));
        const olds = [apiKey({ kind: "operator" }, time(1)), apiKey({ kind: "operator" }, time(1))];
        for (const key of [admin, ...olds]) await context.analytics.insertApiKey(key);
        const next = apiKey({ kind: "operator" }, time(2));
        expect(await context.analytics.replaceOperatorKeys(next)).toBe(2);
        for (const old of olds) expect(await context.analytics.findApiKeyByHash(old.hash)).toBeUndefined();
        expect(await context.analytics.findApiKeyByHash(next.hash)).toEqual(next);
        expect(await context.analytics.findApiKeyByHash(admin.hash)).toEqual(admin);
        // A digest that exists, or an admin's key: refused, and the current operator key stays.
        await rejectionOf(context.analytics.replaceOperatorKeys({ ...apiKey({ kind: "operator" }), hash: admin.hash }));
        await rejectionOf(context.analytics.replaceOperatorKeys(apiKey({ kind: "admin", adminUserId: user.id })));
        expect(await context.analytics.findApiKeyByHash(next.hash)).toEqual(next);
        expect(await context.analytics.hasOperatorKey()).toBe(true);
      },
    ),

    analyticsConformanceTest("hasOperatorKey is true once an operator key exists, and admin keys do not count", async (context) => {
      expect(await context.analytics.hasOperatorKey()).toBe(false);
      const { user } = await addAdminUser(context, { status: "active" });
      await context.analytics.insertApiKey(apiKey({ kind: "admin", adminUserId: user.id }));
      expect(await context.analytics.hasOperatorKey()).toBe(false);
      await context.analytics.insertApiKey(apiKey({ kind: "operator" }));
      expect(await context.analytics.hasOperatorKey()).toBe(true);
    }),
  ],
};
