/**
 * Setup links (issue 31): stored with the digest of their code only; exchanged once for a session,
 * while unused, unrevoked and unexpired; a session that ends with its link's expiry or revocation;
 * one identity provider chosen and one token recorded per link; gone with their organization.
 */
import { expect } from "vitest";
import type { SetupLink } from "@scimkit/server";
import {
  analyticsConformanceTest,
  type AnalyticsConformanceContext,
  type AnalyticsConformanceSuite,
} from "../analytics-conformance-test.js";
import { ALL, addOrganization, newId, randomHash, time } from "./helpers.js";

/** A link of `orgId` created at minute `created`, expiring at minute `expires`. */
function link(orgId: string, created = 0, expires = 60): SetupLink {
  return { id: newId(), orgId, createdAt: time(created), expiresAt: time(expires) };
}

/** An organization and one stored link of it, with its code's digest. */
async function stored(context: AnalyticsConformanceContext, expires = 60): Promise<{ link: SetupLink; code: string }> {
  const organization = await addOrganization(context);
  const made = { ...link(organization.id, 0, expires), identityProvider: "okta" as const, createdBy: "key-1" };
  const code = randomHash();
  await context.analytics.createSetupLink(made, code);
  return { link: made, code };
}

export const setupLinksSuite: AnalyticsConformanceSuite = {
  title: "setup links",
  tests: [
    analyticsConformanceTest(
      "createSetupLink stores a link, listed the most recent first and read by id within its organization",
      async (context) => {
        const { link: first } = await stored(context);
        const second = link(first.orgId, 5);
        await context.analytics.createSetupLink(second, randomHash());
        expect(await context.analytics.listSetupLinks(first.orgId)).toEqual([second, first]);
        expect(await context.analytics.getSetupLink(first.orgId, first.id)).toEqual(first);
        const other = await addOrganization(context);
        expect(await context.analytics.getSetupLink(other.id, first.id)).toBeUndefined();
        expect(await context.analytics.listSetupLinks(other.id)).toEqual([]);
      },
    ),

    analyticsConformanceTest("a code is exchanged once for a session, which finds the link until it expires", async (context) => {
      const { link: made, code } = await stored(context);
      const session = randomHash();
      expect(await context.analytics.useSetupLink(randomHash(), time(1), randomHash())).toBeUndefined();
      expect(await context.analytics.useSetupLink(code, time(1), session)).toEqual({ ...made, usedAt: time(1) });
      expect(await context.analytics.useSetupLink(code, time(2), randomHash())).toBe("used");
      expect(await context.analytics.findSetupSession(session, time(30))).toEqual({ ...made, usedAt: time(1) });
      expect(await context.analytics.findSetupSession(session, time(60))).toBeUndefined();
      expect(await context.analytics.findSetupSession(randomHash(), time(30))).toBeUndefined();
    }),

    analyticsConformanceTest("of concurrent exchanges of one code exactly one gets the link", async (context) => {
      const { code } = await stored(context);
      const sessions = Array.from({ length: 6 }, () => randomHash());
      const outcomes = await Promise.all(sessions.map((session) => context.analytics.useSetupLink(code, time(1), session)));
      expect(outcomes.filter((outcome) => typeof outcome === "object")).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === "used")).toHaveLength(5);
      const winner = sessions[outcomes.findIndex((outcome) => typeof outcome === "object")] ?? "";
      expect(await context.analytics.findSetupSession(winner, time(2))).toBeDefined();
    }),

    analyticsConformanceTest("an expired link opens nothing, and a revoked one neither, its session ending with it", async (context) => {
      const expired = await stored(context, 10);
      expect(await context.analytics.useSetupLink(expired.code, time(10), randomHash())).toBe("expired");
      const revoked = await stored(context);
      const session = randomHash();
      await context.analytics.useSetupLink(revoked.code, time(1), session);
      const result = await context.analytics.revokeSetupLink(revoked.link.orgId, revoked.link.id, time(2));
      expect(result).toEqual({ ...revoked.link, usedAt: time(1), revokedAt: time(2) });
      // Revoked once: the first time stays.
      expect((await context.analytics.revokeSetupLink(revoked.link.orgId, revoked.link.id, time(3)))?.revokedAt).toBe(time(2));
      expect(await context.analytics.findSetupSession(session, time(3))).toBeUndefined();
      const unused = await stored(context);
      await context.analytics.revokeSetupLink(unused.link.orgId, unused.link.id, time(1));
      expect(await context.analytics.useSetupLink(unused.code, time(2), randomHash())).toBe("revoked");
      expect(await context.analytics.revokeSetupLink(unused.link.orgId, newId(), time(1))).toBeUndefined();
    }),

    analyticsConformanceTest("a link records the identity provider chosen, and one token only", async (context) => {
      const { link: made } = await stored(context);
      await context.analytics.setSetupIdentityProvider(made.id, "entra");
      expect(await context.analytics.recordSetupToken(made.id, "token-1")).toBe(true);
      expect(await context.analytics.recordSetupToken(made.id, "token-2")).toBe(false);
      expect(await context.analytics.getSetupLink(made.orgId, made.id)).toEqual({ ...made, identityProvider: "entra", tokenId: "token-1" });
    }),

    analyticsConformanceTest("an organization's links go with it", async (context) => {
      const { link: made, code } = await stored(context);
      expect(await context.analytics.deleteOrganization(ALL, made.orgId)).toBe(true);
      expect(await context.analytics.listSetupLinks(made.orgId)).toEqual([]);
      expect(await context.analytics.useSetupLink(code, time(1), randomHash())).toBeUndefined();
    }),
  ],
};
