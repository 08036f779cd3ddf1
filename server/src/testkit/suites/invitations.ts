/**
 * Invitations: a single-use code, known to the store only by its digest, that activates an
 * invited admin user and stores its first API key in one step — or does nothing at all.
 */
import { expect } from "vitest";
import { analyticsConformanceTest, type AnalyticsConformanceSuite } from "../analytics-conformance-test.js";
import { ALL, addAdminUser, addOrganization, apiKey, randomHash, time } from "./helpers.js";

export const invitationsSuite: AnalyticsConformanceSuite = {
  title: "invitations",
  tests: [
    analyticsConformanceTest("acceptInvitation activates the user, stores the key and consumes the code", async (context) => {
      const acme = await addOrganization(context);
      const { user, codeHash } = await addAdminUser(context, { organizationIds: [acme.id] }, { expiresAt: time(100) });
      const key = apiKey({ kind: "admin", adminUserId: user.id }, time(50));
      const accepted = await context.analytics.acceptInvitation(codeHash, time(50), key);
      const { invitationExpiresAt: _pending, ...rest } = user;
      const expected = { ...rest, status: "active", activatedAt: time(50), updatedAt: time(50) };
      expect(accepted).toEqual(expected);
      expect(accepted?.invitationExpiresAt).toBeUndefined();
      expect(await context.analytics.getAdminUser(ALL, user.id)).toEqual(expected);
      expect(await context.analytics.findApiKeyByHash(key.hash)).toEqual(key);
      const again = apiKey({ kind: "admin", adminUserId: user.id }, time(51));
      expect(await context.analytics.acceptInvitation(codeHash, time(51), again)).toBeUndefined();
      expect(await context.analytics.findApiKeyByHash(again.hash)).toBeUndefined();
      // Consumed, not merely refused because the user is active: back to invited, it still fails.
      await context.analytics.updateAdminUser(ALL, user.id, { status: "invited", updatedAt: time(52) });
      expect(await context.analytics.acceptInvitation(codeHash, time(53), again)).toBeUndefined();
      expect((await context.analytics.getAdminUser(ALL, user.id))?.status).toBe("invited");
    }),

    analyticsConformanceTest("an expired invitation is refused and leaves the user invited", async (context) => {
      const { user, codeHash } = await addAdminUser(context, {}, { expiresAt: time(100) });
      const key = apiKey({ kind: "admin", adminUserId: user.id }, time(101));
      expect(await context.analytics.acceptInvitation(codeHash, time(101), key)).toBeUndefined();
      expect(await context.analytics.getAdminUser(ALL, user.id)).toEqual(user);
      expect(await context.analytics.findApiKeyByHash(key.hash)).toBeUndefined();
    }),

    analyticsConformanceTest("an unknown code is refused", async (context) => {
      const { user } = await addAdminUser(context);
      const key = apiKey({ kind: "admin", adminUserId: user.id });
      expect(await context.analytics.acceptInvitation(randomHash(), time(1), key)).toBeUndefined();
      expect(await context.analytics.getAdminUser(ALL, user.id)).toEqual(user);
      expect(await context.analytics.findApiKeyByHash(key.hash)).toBeUndefined();
    }),

    analyticsConformanceTest("each code activates only its own user", async (context) => {
      const first = await addAdminUser(context);
      const second = await addAdminUser(context);
      const key = apiKey({ kind: "admin", adminUserId: second.user.id });
      expect((await context.analytics.acceptInvitation(second.codeHash, time(1), key))?.id).toBe(second.user.id);
      expect(await context.analytics.getAdminUser(ALL, first.user.id)).toEqual(first.user);
      const firstKey = apiKey({ kind: "admin", adminUserId: first.user.id });
      expect((await context.analytics.acceptInvitation(first.codeHash, time(2), firstKey))?.status).toBe("active");
    }),

    analyticsConformanceTest(
      "accepting is atomic: when the key cannot be stored the user stays invited and the code still works",
      async (context) => {
        const { user, codeHash } = await addAdminUser(context, {}, { expiresAt: time(100) });
        const taken = apiKey({ kind: "operator" });
        await context.analytics.insertApiKey(taken);
        let outcome: unknown;
        try {
          outcome = await context.analytics.acceptInvitation(codeHash, time(10), {
            ...apiKey({ kind: "admin", adminUserId: user.id }),
            hash: taken.hash,
          });
        } catch {
          outcome = "rejected";
        }
        // Refusing (undefined) or rejecting are both atomic; activating without the key is not.
        expect([undefined, "rejected"]).toContain(outcome);
        expect(await context.analytics.getAdminUser(ALL, user.id)).toEqual(user);
        expect(await context.analytics.findApiKeyByHash(taken.hash)).toEqual(taken);
        const key = apiKey({ kind: "admin", adminUserId: user.id });
        expect((await context.analytics.acceptInvitation(codeHash, time(11), key))?.status).toBe("active");
        expect(await context.analytics.findApiKeyByHash(key.hash)).toEqual(key);
      },
    ),

    analyticsConformanceTest("deleting an invited user withdraws its invitation", async (context) => {
      const { user, codeHash } = await addAdminUser(context);
      expect(await context.analytics.deleteAdminUser(ALL, user.id)).toBe(true);
      const key = apiKey({ kind: "admin", adminUserId: user.id });
      expect(await context.analytics.acceptInvitation(codeHash, time(1), key)).toBeUndefined();
      expect(await context.analytics.findApiKeyByHash(key.hash)).toBeUndefined();
      expect(await context.analytics.getAdminUser(ALL, user.id)).toBeUndefined();
    }),
  ],
};
