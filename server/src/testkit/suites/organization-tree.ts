/**
 * The organization tree (issue 17): parents set on create and changed later, cycles and chains
 * deeper than `MAX_ORGANIZATION_DEPTH` refused, a parent with children kept unless its whole
 * subtree is deleted — then everything of every organization in it goes, and nothing else — and
 * two racing moves that together would close a cycle never both taking effect.
 */
import { expect } from "vitest";
import type { Organization, OrganizationTreeRefusal } from "@scimkit/server";
import {
  analyticsConformanceTest,
  type AnalyticsConformanceContext,
  type AnalyticsConformanceSuite,
} from "../analytics-conformance-test.js";
import {
  ALL,
  addAdminUser,
  addCampaign,
  addLearner,
  addOrganization,
  addSimulation,
  completed,
  inProgress,
  newId,
  only,
  randomHash,
  time,
} from "./helpers.js";

/**
 * The contract's depth bound, `MAX_ORGANIZATION_DEPTH` of scimkit/analytics: repeated here because
 * the kit imports the analytics interface's types only (architecture §3).
 */
const MAX_ORGANIZATION_DEPTH = 8;

const VERIFY_CONTEXT = { method: "GET", path: "/Users" } as const;

/** The refusal `promise` rejects with; fails the check when it resolves or rejects otherwise. */
async function refusalOf(promise: Promise<unknown>): Promise<OrganizationTreeRefusal> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect((error as { readonly code?: unknown } | undefined)?.code, "an OrganizationTreeError").toBe("organization-tree");
  return (error as { readonly refusal: OrganizationTreeRefusal }).refusal;
}

/** A company with two divisions, and a team under the first. */
async function company(context: AnalyticsConformanceContext) {
  const acme = await addOrganization(context, { id: "acme", name: "Acme" });
  const emea = await addOrganization(context, { id: "acme-emea", name: "Acme EMEA", parentId: acme.id });
  const amer = await addOrganization(context, { id: "acme-amer", name: "Acme Americas", parentId: acme.id });
  const team = await addOrganization(context, { id: "acme-emea-sec", name: "EMEA security", parentId: emea.id });
  return { acme, emea, amer, team };
}

/** A chain of `length` organizations, root first. */
async function chain(context: AnalyticsConformanceContext, prefix: string, length: number): Promise<Organization[]> {
  const made: Organization[] = [];
  for (let index = 0; index < length; index += 1) {
    const parent = made[index - 1];
    made.push(await addOrganization(context, { id: `${prefix}${index}`, ...(parent === undefined ? {} : { parentId: parent.id }) }));
  }
  return made;
}

const change = (parentId: string | null) => ({ parentId, updatedAt: time(5) });

export const organizationTreeSuite: AnalyticsConformanceSuite = {
  title: "organization tree",
  tests: [
    analyticsConformanceTest(
      "an organization created with a parent reads back with it; children list and subtree ids follow",
      async (context) => {
        const { acme, emea, amer, team } = await company(context);
        expect(await context.analytics.getOrganization(ALL, emea.id)).toEqual(emea);
        expect((await context.analytics.getOrganization(ALL, acme.id))?.parentId).toBeUndefined();
        const children = await context.analytics.listOrganizations(ALL, { limit: 10 }, { parentId: acme.id });
        expect(children.items.map((organization) => organization.id)).toEqual([amer.id, emea.id]);
        expect(await context.analytics.listSubtreeIds([acme.id])).toEqual([acme.id, amer.id, emea.id, team.id]);
        expect(await context.analytics.listSubtreeIds([emea.id])).toEqual([emea.id, team.id]);
        expect(await context.analytics.listSubtreeIds(["nobody"])).toEqual([]);
      },
    ),

    analyticsConformanceTest("a parent that does not exist is refused and nothing is stored", async (context) => {
      const refusal = await refusalOf(addOrganization(context, { id: "orphan", parentId: "nobody" }));
      expect(refusal).toEqual({ kind: "unknown-parent", parentId: "nobody" });
      expect(await context.analytics.getOrganization(ALL, "orphan")).toBeUndefined();
      const root = await addOrganization(context, { id: "root" });
      expect(await refusalOf(context.analytics.updateOrganization(ALL, root.id, change("nobody")))).toEqual({
        kind: "unknown-parent",
        parentId: "nobody",
      });
      expect(await context.analytics.getOrganization(ALL, root.id)).toEqual(root);
    }),

    analyticsConformanceTest("a move changes the parent, null makes a root, and other changes keep it", async (context) => {
      const { acme, emea, amer, team } = await company(context);
      const moved = await context.analytics.updateOrganization(ALL, team.id, change(amer.id));
      expect(moved).toEqual({ ...team, parentId: amer.id, updatedAt: time(5) });
      expect(await context.analytics.listSubtreeIds([amer.id])).toEqual([amer.id, team.id]);
      expect(await context.analytics.updateOrganization(ALL, team.id, { name: "Security", updatedAt: time(6) })).toMatchObject({
        parentId: amer.id,
        name: "Security",
      });
      const root = await context.analytics.updateOrganization(ALL, emea.id, change(null));
      expect(root?.parentId).toBeUndefined();
      expect(await context.analytics.getOrganization(ALL, emea.id)).toEqual(root);
      expect(await context.analytics.listSubtreeIds([acme.id])).toEqual([acme.id, amer.id, team.id]);
    }),

    analyticsConformanceTest("a move under itself or a descendant is refused as a cycle naming it", async (context) => {
      const { acme, emea, team } = await company(context);
      expect(await refusalOf(context.analytics.updateOrganization(ALL, acme.id, change(team.id)))).toEqual({
        kind: "cycle",
        cycle: [acme.id, team.id, emea.id, acme.id],
      });
      expect(await refusalOf(context.analytics.updateOrganization(ALL, emea.id, change(emea.id)))).toEqual({
        kind: "cycle",
        cycle: [emea.id, emea.id],
      });
      expect((await context.analytics.getOrganization(ALL, acme.id))?.parentId).toBeUndefined();
      expect((await context.analytics.getOrganization(ALL, emea.id))?.parentId).toBe(acme.id);
    }),

    analyticsConformanceTest(
      `chains are bounded at ${MAX_ORGANIZATION_DEPTH} organizations, for a new one and for a moved subtree`,
      async (context) => {
        const deep = await chain(context, "d", MAX_ORGANIZATION_DEPTH);
        const bottom = deep[deep.length - 1] as Organization;
        expect(await refusalOf(addOrganization(context, { id: "too-deep", parentId: bottom.id }))).toEqual({
          kind: "depth",
          depth: MAX_ORGANIZATION_DEPTH + 1,
        });
        expect(await context.analytics.getOrganization(ALL, "too-deep")).toBeUndefined();
        // A two-level subtree fits under the second-to-last level only if the chain leaves room for both.
        const pair = await chain(context, "p", 2);
        const top = pair[0] as Organization;
        expect(await refusalOf(context.analytics.updateOrganization(ALL, top.id, change(bottom.id)))).toEqual({
          kind: "depth",
          depth: MAX_ORGANIZATION_DEPTH + 2,
        });
        const room = deep[MAX_ORGANIZATION_DEPTH - 3] as Organization;
        expect(await context.analytics.updateOrganization(ALL, top.id, change(room.id))).toMatchObject({ parentId: room.id });
      },
    ),

    analyticsConformanceTest("deleting an organization with children is refused with their count and deletes nothing", async (context) => {
      const { acme, emea, amer, team } = await company(context);
      expect(await refusalOf(context.analytics.deleteOrganization(ALL, acme.id))).toEqual({ kind: "has-children", children: 2 });
      expect(await refusalOf(context.analytics.deleteOrganization(ALL, emea.id, { subtree: false }))).toEqual({
        kind: "has-children",
        children: 1,
      });
      expect(await context.analytics.listSubtreeIds([acme.id])).toEqual([acme.id, amer.id, emea.id, team.id]);
      // A leaf needs no option.
      expect(await context.analytics.deleteOrganization(ALL, team.id)).toBe(true);
      expect(await context.analytics.listSubtreeIds([acme.id])).toEqual([acme.id, amer.id, emea.id]);
    }),

    analyticsConformanceTest(
      "a subtree delete removes every organization in it with its data, and nothing above or beside",
      async (context) => {
        const { acme, emea, amer, team } = await company(context);
        const tokens = new Map<string, string>();
        const learners = new Map<string, string>();
        for (const organization of [acme, emea, amer, team]) {
          tokens.set(organization.id, (await context.tokens.issue(organization.id, { label: "IdP" })).token);
          // The same userName in every organization: each is its own user.
          learners.set(organization.id, (await addLearner(context, organization.id, "ada")).id);
          await addCampaign(context, organization.id);
        }
        const admin = (await addAdminUser(context, { organizationIds: [acme.id, emea.id, team.id] })).user;
        expect(await context.analytics.deleteOrganization(ALL, emea.id, { subtree: true })).toBe(true);
        for (const gone of [emea.id, team.id]) {
          expect(await context.analytics.getOrganization(ALL, gone), gone).toBeUndefined();
          expect(await context.tokens.verify(tokens.get(gone) ?? "", gone, VERIFY_CONTEXT), gone).toBeNull();
          expect(
            await context.resources.get({ orgId: gone, resourceType: "User", id: learners.get(gone) ?? "", members: false }),
          ).toBeUndefined();
          expect((await context.analytics.listCampaigns(ALL, { limit: 10 }, { orgId: gone })).items).toEqual([]);
        }
        for (const kept of [acme.id, amer.id]) {
          expect(await context.analytics.getOrganization(ALL, kept), kept).toBeDefined();
          expect(await context.tokens.verify(tokens.get(kept) ?? "", kept, VERIFY_CONTEXT), kept).not.toBeNull();
          expect(
            await context.resources.get({ orgId: kept, resourceType: "User", id: learners.get(kept) ?? "", members: false }),
          ).toBeDefined();
          expect((await context.analytics.listCampaigns(ALL, { limit: 10 }, { orgId: kept })).items).toHaveLength(1);
        }
        expect((await context.analytics.getAdminUser(ALL, admin.id))?.organizationIds).toEqual([acme.id]);
        expect(await context.analytics.listSubtreeIds([acme.id])).toEqual([acme.id, amer.id]);
      },
    ),

    analyticsConformanceTest("a subtree delete or a move out of scope finds nothing and changes nothing", async (context) => {
      const { acme, emea, amer } = await company(context);
      expect(await context.analytics.deleteOrganization(only(amer.id), emea.id, { subtree: true })).toBe(false);
      expect(await context.analytics.updateOrganization(only(amer.id), emea.id, change(amer.id))).toBeUndefined();
      expect((await context.analytics.getOrganization(ALL, emea.id))?.parentId).toBe(acme.id);
    }),

    analyticsConformanceTest("listSubtreeIds of several roots gives each once, roots that do not exist aside", async (context) => {
      const { acme, emea, amer, team } = await company(context);
      const other = await addOrganization(context, { id: "other" });
      expect(await context.analytics.listSubtreeIds([emea.id, acme.id, "nobody"])).toEqual([acme.id, amer.id, emea.id, team.id]);
      expect(await context.analytics.listSubtreeIds([team.id, other.id])).toEqual([team.id, other.id]);
      expect(await context.analytics.listSubtreeIds([])).toEqual([]);
    }),

    analyticsConformanceTest(
      "a status change with cascade reaches every descendant and nothing else; without, only the organization",
      async (context) => {
        const { acme, emea, amer, team } = await company(context);
        const other = await addOrganization(context, { id: "other" });
        const statusOf = async (id: string) => (await context.analytics.getOrganization(ALL, id))?.status;
        const suspended = await context.analytics.updateOrganization(ALL, emea.id, {
          status: "suspended",
          cascade: true,
          updatedAt: time(7),
        });
        expect(suspended).toMatchObject({ id: emea.id, status: "suspended" });
        expect(await context.analytics.getOrganization(ALL, team.id)).toEqual({ ...team, status: "suspended", updatedAt: time(7) });
        for (const id of [acme.id, amer.id, other.id]) expect(await statusOf(id), id).toBe("active");
        await context.analytics.updateOrganization(ALL, acme.id, { status: "suspended", cascade: true, updatedAt: time(8) });
        for (const id of [acme.id, emea.id, amer.id, team.id]) expect(await statusOf(id), id).toBe("suspended");
        await context.analytics.updateOrganization(ALL, acme.id, { status: "active", updatedAt: time(9) });
        expect([await statusOf(acme.id), await statusOf(emea.id)]).toEqual(["active", "suspended"]);
        await context.analytics.updateOrganization(ALL, acme.id, { status: "active", cascade: true, updatedAt: time(10) });
        for (const id of [acme.id, emea.id, amer.id, team.id]) expect(await statusOf(id), id).toBe("active");
        expect(await statusOf(other.id)).toBe("active");
      },
    ),

    analyticsConformanceTest(
      "an admin user keeps its subtree grants, sorted, through changes and organization deletes",
      async (context) => {
        const { acme, emea, amer, team } = await company(context);
        const { user } = await addAdminUser(context, {
          organizationIds: [emea.id, acme.id, amer.id],
          subtreeOrganizationIds: [emea.id, acme.id],
        });
        const sorted = { ...user, organizationIds: [acme.id, amer.id, emea.id], subtreeOrganizationIds: [acme.id, emea.id] };
        expect(await context.analytics.getAdminUser(ALL, user.id)).toEqual(sorted);
        // A new organizationIds keeps the subtree of each grant that stays.
        const narrowed = await context.analytics.updateAdminUser(ALL, user.id, { organizationIds: [emea.id, team.id], updatedAt: time(3) });
        expect(narrowed).toMatchObject({ organizationIds: [emea.id, team.id], subtreeOrganizationIds: [emea.id] });
        const none = await context.analytics.updateAdminUser(ALL, user.id, { subtreeOrganizationIds: [], updatedAt: time(4) });
        expect(none?.organizationIds).toEqual([emea.id, team.id]);
        expect(none).not.toHaveProperty("subtreeOrganizationIds");
        await context.analytics.updateAdminUser(ALL, user.id, { subtreeOrganizationIds: [team.id], updatedAt: time(5) });
        expect(await context.analytics.deleteOrganization(ALL, team.id)).toBe(true);
        const after = await context.analytics.getAdminUser(ALL, user.id);
        expect(after?.organizationIds).toEqual([emea.id]);
        expect(after).not.toHaveProperty("subtreeOrganizationIds");
        const plain = (await addAdminUser(context, { organizationIds: [amer.id] })).user;
        expect(await context.analytics.getAdminUser(ALL, plain.id)).not.toHaveProperty("subtreeOrganizationIds");
      },
    ),

    analyticsConformanceTest(
      "grantedBy bounds the grants of an invitation or a change by the granter's own, itself included (issue 27)",
      async (context) => {
        const { acme, emea, team } = await company(context);
        const globex = await addOrganization(context, { id: "globex", name: "Globex" });
        const flat = (await addAdminUser(context, { organizationIds: [globex.id, emea.id] })).user;
        const cio = (await addAdminUser(context, { organizationIds: [acme.id], subtreeOrganizationIds: [acme.id] })).user;
        const beyondOf = async (promise: Promise<unknown>) => {
          const error: unknown = await promise.then(
            () => undefined,
            (reason: unknown) => reason,
          );
          expect(error, "the write was not refused").toBeInstanceOf(Error);
          expect((error as { code?: unknown }).code).toBe("grant-beyond-scope");
          return (error as { beyond: readonly unknown[] }).beyond;
        };
        const invite = (grantedBy: string, organizationIds: string[], subtreeOrganizationIds: string[] = []) => {
          const id = newId();
          const user = {
            id,
            email: `invited-${id}@example.test`,
            role: "admin",
            organizationIds,
            ...(subtreeOrganizationIds.length === 0 ? {} : { subtreeOrganizationIds }),
            status: "invited",
            invitedAt: time(1),
            invitationExpiresAt: time(100),
            updatedAt: time(1),
          } as const;
          return context.analytics.createAdminUser(user, { codeHash: randomHash(), expiresAt: time(100) }, { grantedBy });
        };
        // Holding an organization is not holding its subtree, even one without descendants.
        expect(await beyondOf(invite(flat.id, [globex.id], [globex.id]))).toEqual([{ kind: "subtree", orgId: globex.id }]);
        expect(await beyondOf(invite(flat.id, [acme.id]))).toEqual([{ kind: "organization", orgId: acme.id }]);
        expect(
          await beyondOf(
            context.analytics.updateAdminUser(
              ALL,
              flat.id,
              { subtreeOrganizationIds: [globex.id], updatedAt: time(2) },
              { grantedBy: flat.id },
            ),
          ),
        ).toEqual([{ kind: "subtree", orgId: globex.id }]);
        expect((await context.analytics.getAdminUser(ALL, flat.id))?.subtreeOrganizationIds).toBeUndefined();
        // A subtree holder grants within it, to others and to itself; nothing changes beside it.
        const widened = await context.analytics.updateAdminUser(
          ALL,
          cio.id,
          { organizationIds: [acme.id, team.id], subtreeOrganizationIds: [acme.id, team.id], updatedAt: time(3) },
          { grantedBy: cio.id },
        );
        expect(widened).toMatchObject({ organizationIds: [acme.id, team.id], subtreeOrganizationIds: [acme.id, team.id] });
        expect(
          await beyondOf(
            context.analytics.updateAdminUser(
              ALL,
              cio.id,
              { organizationIds: [acme.id, globex.id], updatedAt: time(4) },
              { grantedBy: cio.id },
            ),
          ),
        ).toEqual([{ kind: "organization", orgId: globex.id }]);
        // Without grantedBy (the operator) nothing is bounded.
        expect(
          await context.analytics.updateAdminUser(ALL, flat.id, { subtreeOrganizationIds: [globex.id], updatedAt: time(5) }),
        ).toMatchObject({
          subtreeOrganizationIds: [globex.id],
        });
      },
    ),

    analyticsConformanceTest(
      "treeSummary aggregates the subtree in scope by organization, and counts a work e-mail once when asked",
      async (context) => {
        const { acme, emea, amer, team } = await company(context);
        const work = (value: string) => ({ emails: [{ value, type: "work" }] });
        await addLearner(context, acme.id, "ada", work("ada@acme.example"));
        const ada2 = await addLearner(context, emea.id, "ada.emea", { emails: [{ value: "ADA@acme.example", type: "Work" }] });
        const bob = await addLearner(context, emea.id, "bob", { active: false });
        const cy = await addLearner(context, amer.id, "cy", work("cy@acme.example"));
        const campaign = await addCampaign(context, emea.id, { dueAt: time(50) });
        await context.analytics.putEnrolment(emea.id, completed(campaign.id, ada2.id, 90));
        await context.analytics.putEnrolment(emea.id, inProgress(campaign.id, bob.id));
        const simulation = await addSimulation(context, amer.id);
        for (const type of ["sent", "clicked"] as const)
          await context.analytics.recordSimulationEvent(amer.id, { simulationId: simulation.id, userId: cy.id, type, at: time(3) });
        const zero = { learners: 0, activeLearners: 0, enrolled: 0, completed: 0, overdue: 0, sent: 0, clicked: 0, reported: 0 };
        const summary = await context.analytics.treeSummary(ALL, acme.id, { asOf: time(100) });
        expect(summary).toEqual({
          orgId: acme.id,
          organizations: [
            { ...zero, orgId: acme.id, learners: 1, activeLearners: 1 },
            { ...zero, orgId: amer.id, learners: 1, activeLearners: 1, sent: 1, clicked: 1 },
            { ...zero, orgId: emea.id, learners: 2, activeLearners: 1, enrolled: 2, completed: 1, overdue: 1 },
            { ...zero, orgId: team.id },
          ],
          totals: { ...zero, learners: 4, activeLearners: 3, enrolled: 2, completed: 1, overdue: 1, sent: 1, clicked: 1 },
          asOf: time(100),
        });
        const withPeople = await context.analytics.treeSummary(ALL, acme.id, { asOf: time(100), people: true });
        expect(withPeople?.people).toEqual({ learners: 3, activeLearners: 2 });
        const scoped = await context.analytics.treeSummary(only(acme.id, emea.id), acme.id, { asOf: time(10), people: true });
        expect(scoped?.organizations.map((row) => row.orgId)).toEqual([acme.id, emea.id]);
        expect(scoped?.totals).toMatchObject({ learners: 3, overdue: 0 });
        expect(scoped?.people).toEqual({ learners: 2, activeLearners: 1 });
        expect(await context.analytics.treeSummary(only(emea.id), acme.id, { asOf: time(10) })).toBeUndefined();
        expect(await context.analytics.treeSummary(ALL, "nobody", { asOf: time(10) })).toBeUndefined();
      },
    ),

    analyticsConformanceTest("two racing moves that together would close a cycle never both take effect", async (context) => {
      for (let round = 0; round < 5; round += 1) {
        const left = await addOrganization(context, { id: `left-${round}` });
        const right = await addOrganization(context, { id: `right-${round}` });
        const results = await Promise.allSettled([
          context.analytics.updateOrganization(ALL, left.id, change(right.id)),
          context.analytics.updateOrganization(ALL, right.id, change(left.id)),
        ]);
        const moved = results.filter((result) => result.status === "fulfilled");
        expect(moved, `round ${round}`).toHaveLength(1);
        for (const result of results) {
          if (result.status === "rejected") expect((result.reason as { readonly code?: unknown }).code).toBe("organization-tree");
        }
        const parents = [
          (await context.analytics.getOrganization(ALL, left.id))?.parentId,
          (await context.analytics.getOrganization(ALL, right.id))?.parentId,
        ];
        expect(
          parents.filter((parent) => parent !== undefined),
          `round ${round}`,
        ).toHaveLength(1);
      }
    }),

    analyticsConformanceTest("a child created while its parent's subtree is deleted is refused or deleted with it", async (context) => {
      const { acme, emea } = await company(context);
      const results = await Promise.allSettled([
        context.analytics.deleteOrganization(ALL, emea.id, { subtree: true }),
        addOrganization(context, { id: "late", parentId: emea.id }),
      ]);
      expect(results[0]).toEqual({ status: "fulfilled", value: true });
      expect(await context.analytics.getOrganization(ALL, "late")).toBeUndefined();
      expect(await context.analytics.listSubtreeIds([acme.id])).toEqual([acme.id, "acme-amer"]);
    }),
  ],
};
