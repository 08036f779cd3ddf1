/**
 * Deleting an organization removes everything of it — SCIM users, groups and tokens as well as its
 * analytics data — strips it from admin users, and leaves every other organization exactly as it
 * was. Each organization here gets a full set of data through `populate`, so nothing is missed.
 */
import { expect } from "vitest";
import type { AdminUser, Organization } from "@scimkit/server";
import {
  analyticsConformanceTest,
  type AnalyticsConformanceContext,
  type AnalyticsConformanceSuite,
} from "../analytics-conformance-test.js";
import {
  ALL,
  addAdminUser,
  addCampaign,
  addFeedback,
  addGroup,
  addLearner,
  addOperation,
  addOrganization,
  addSimulation,
  completed,
  inDepartment,
  inProgress,
  only,
  readAllRows,
  time,
} from "./helpers.js";

const VERIFY_CONTEXT = { method: "GET", path: "/Users" } as const;

/** The ids of what `populate` made in one organization, and its SCIM token. */
interface Populated {
  readonly organization: Organization;
  readonly token: string;
  readonly userIds: readonly string[];
  readonly groupId: string;
  readonly campaignId: string;
  readonly simulationId: string;
  readonly operationId: string;
}

async function populate(context: AnalyticsConformanceContext, name: string): Promise<Populated> {
  const organization = await addOrganization(context, { name });
  const { token } = await context.tokens.issue(organization.id, { label: `${name} IdP` });
  const ada = await addLearner(context, organization.id, "ada", inDepartment("Research", { displayName: "Ada" }));
  const grace = await addLearner(context, organization.id, "grace", { active: false });
  const group = await addGroup(context, organization.id, "Everyone", [ada.id, grace.id]);
  const campaign = await addCampaign(context, organization.id, { dueAt: time(100) });
  await context.analytics.putEnrolment(organization.id, completed(campaign.id, ada.id, 88));
  await context.analytics.putEnrolment(organization.id, inProgress(campaign.id, grace.id));
  const simulation = await addSimulation(context, organization.id);
  await context.analytics.recordSimulationEvent(organization.id, {
    simulationId: simulation.id,
    userId: ada.id,
    type: "sent",
    at: time(1),
  });
  await context.analytics.recordSimulationEvent(organization.id, {
    simulationId: simulation.id,
    userId: ada.id,
    type: "clicked",
    at: time(2),
  });
  await addFeedback(context, organization.id, { kind: "campaign", id: campaign.id }, ada.id, { rating: 4 });
  await addFeedback(context, organization.id, { kind: "simulation", id: simulation.id }, grace.id);
  const operation = await addOperation(context, organization.id, campaign.id, { status: "succeeded" });
  await context.analytics.appendReportRows(operation.id, [
    { userId: ada.id, completed: true },
    { userId: grace.id, completed: false },
  ]);
  return {
    organization,
    token,
    userIds: [ada.id, grace.id],
    groupId: group.id,
    campaignId: campaign.id,
    simulationId: simulation.id,
    operationId: operation.id,
  };
}

/** Everything a caller can read of a populated organization, through every store. */
async function snapshot(context: AnalyticsConformanceContext, populated: Populated) {
  const orgId = populated.organization.id;
  const { analytics, resources, tokens } = context;
  return {
    organization: await analytics.getOrganization(ALL, orgId),
    learners: await analytics.listLearners(ALL, { orgId }, { limit: 1000 }),
    users: await resources.list({ orgId, resourceType: "User", page: { kind: "index", startIndex: 1, count: 1000 }, members: false }),
    group: await resources.get({ orgId, resourceType: "Group", id: populated.groupId, members: true }),
    // Verifying records lastUsedAt, which is not what this compares; so it goes first and is left out.
    verifies: (await tokens.verify(populated.token, orgId, VERIFY_CONTEXT)) !== null,
    tokens: (await tokens.list(orgId)).map(({ lastUsedAt: _lastUsedAt, ...record }) => record),
    campaigns: await analytics.listCampaigns(ALL, { limit: 1000 }, { orgId }),
    campaign: await analytics.getCampaign(ALL, populated.campaignId),
    enrolments: await analytics.listEnrolments(populated.campaignId, {}, time(200), { limit: 1000 }),
    campaignSummary: await analytics.campaignSummary(populated.campaignId, time(200)),
    simulation: await analytics.getSimulation(ALL, populated.simulationId),
    recipients: await analytics.listRecipients(populated.simulationId, {}, { limit: 1000 }),
    simulationSummary: await analytics.simulationSummary(populated.simulationId),
    campaignFeedback: await analytics.listFeedback({ kind: "campaign", id: populated.campaignId }, { limit: 1000 }),
    simulationFeedback: await analytics.listFeedback({ kind: "simulation", id: populated.simulationId }, { limit: 1000 }),
    operation: await analytics.getOperation(ALL, populated.operationId),
    reportRows: (await readAllRows(context, populated.operationId)).rows,
  };
}

export const organizationDeleteSuite: AnalyticsConformanceSuite = {
  title: "organization delete",
  tests: [
    analyticsConformanceTest("deleteOrganization removes the organization's SCIM users, groups and tokens", async (context) => {
      const doomed = await populate(context, "Doomed");
      const orgId = doomed.organization.id;
      expect(await context.tokens.verify(doomed.token, orgId, VERIFY_CONTEXT)).not.toBeNull();
      expect(await context.analytics.deleteOrganization(ALL, orgId)).toBe(true);
      expect(await context.tokens.verify(doomed.token, orgId, VERIFY_CONTEXT)).toBeNull();
      expect(await context.tokens.list(orgId)).toEqual([]);
      for (const resourceType of ["User", "Group"]) {
        const list = await context.resources.list({
          orgId,
          resourceType,
          page: { kind: "index", startIndex: 1, count: 100 },
          members: false,
        });
        expect(list, resourceType).toEqual({ totalResults: 0, resources: [] });
      }
      for (const id of doomed.userIds)
        expect(await context.resources.get({ orgId, resourceType: "User", id, members: false })).toBeUndefined();
      expect(await context.resources.get({ orgId, resourceType: "Group", id: doomed.groupId, members: true })).toBeUndefined();
    }),

    analyticsConformanceTest("deleteOrganization removes the organization's analytics data", async (context) => {
      const doomed = await populate(context, "Doomed");
      const orgId = doomed.organization.id;
      expect(await context.analytics.deleteOrganization(only(orgId), orgId)).toBe(true);
      expect(await context.analytics.getOrganization(ALL, orgId)).toBeUndefined();
      expect(await context.analytics.listOrganizations(ALL, { limit: 10 })).toEqual({ items: [] });
      expect(await context.analytics.listLearners(ALL, {}, { limit: 10 })).toEqual({ items: [] });
      expect(await context.analytics.getCampaign(ALL, doomed.campaignId)).toBeUndefined();
      expect(await context.analytics.listCampaigns(ALL, { limit: 10 })).toEqual({ items: [] });
      expect(await context.analytics.listEnrolments(doomed.campaignId, {}, time(200), { limit: 10 })).toEqual({ items: [] });
      for (const userId of doomed.userIds) {
        expect(await context.analytics.getEnrolment(doomed.campaignId, userId, time(200))).toBeUndefined();
        expect(await context.analytics.getRecipient(doomed.simulationId, userId)).toBeUndefined();
      }
      expect(await context.analytics.campaignSummary(doomed.campaignId, time(200))).toMatchObject({
        enrolled: 0,
        completed: 0,
        averageScore: null,
      });
      expect(await context.analytics.getSimulation(ALL, doomed.simulationId)).toBeUndefined();
      expect(await context.analytics.listRecipients(doomed.simulationId, {}, { limit: 10 })).toEqual({ items: [] });
      expect(await context.analytics.simulationSummary(doomed.simulationId)).toMatchObject({ sent: 0, clicked: 0 });
      expect(await context.analytics.listFeedback({ kind: "campaign", id: doomed.campaignId }, { limit: 10 })).toEqual({ items: [] });
      expect(await context.analytics.listFeedback({ kind: "simulation", id: doomed.simulationId }, { limit: 10 })).toEqual({ items: [] });
      expect(await context.analytics.getOperation(ALL, doomed.operationId)).toBeUndefined();
      expect((await readAllRows(context, doomed.operationId)).rows).toEqual([]);
      expect(await context.analytics.deleteOrganization(ALL, orgId)).toBe(false);
    }),

    analyticsConformanceTest("deleteOrganization strips the organization from admin users and keeps the users", async (context) => {
      const doomed = await populate(context, "Doomed");
      const kept = await populate(context, "Kept");
      const doomedId = doomed.organization.id;
      const keptId = kept.organization.id;
      const both = (await addAdminUser(context, { organizationIds: [doomedId, keptId], status: "active" })).user;
      const onlyDoomed = (await addAdminUser(context, { organizationIds: [doomedId] })).user;
      const onlyKept = (await addAdminUser(context, { organizationIds: [keptId] })).user;
      expect(await context.analytics.deleteOrganization(ALL, doomedId)).toBe(true);
      const expectUser = async (user: AdminUser, organizationIds: readonly string[]) =>
        expect(await context.analytics.getAdminUser(ALL, user.id)).toEqual({ ...user, organizationIds });
      await expectUser(both, [keptId]);
      await expectUser(onlyDoomed, []);
      await expectUser(onlyKept, [keptId]);
      expect((await context.analytics.listAdminUsers(ALL, { limit: 10 }, { orgId: doomedId })).items).toEqual([]);
      expect(await context.analytics.getAdminUser(only(doomedId), onlyDoomed.id)).toBeUndefined();
    }),

    analyticsConformanceTest("deleteOrganization leaves every other organization exactly as it was", async (context) => {
      const before = await populate(context, "Before");
      const doomed = await populate(context, "Doomed");
      const after = await populate(context, "After");
      const snapshots = [await snapshot(context, before), await snapshot(context, after)];
      expect(snapshots[0]?.verifies).toBe(true);
      expect(snapshots[0]?.learners.items).toHaveLength(2);
      expect(await context.analytics.deleteOrganization(ALL, doomed.organization.id)).toBe(true);
      const again = [await snapshot(context, before), await snapshot(context, after)];
      expect(JSON.stringify(again)).toBe(JSON.stringify(snapshots));
      expect(again).toStrictEqual(snapshots);
      expect((await context.analytics.listOrganizations(ALL, { limit: 10 })).items.map((organization) => organization.name).sort()).toEqual(
        ["After", "Before"],
      );
    }),

    analyticsConformanceTest("deleteOrganization out of scope is false and deletes nothing", async (context) => {
      const target = await populate(context, "Target");
      const bystander = await addOrganization(context);
      const orgId = target.organization.id;
      const before = await snapshot(context, target);
      expect(await context.analytics.deleteOrganization(only(bystander.id), orgId)).toBe(false);
      expect(await context.analytics.deleteOrganization(only(), orgId)).toBe(false);
      expect(await snapshot(context, target)).toStrictEqual(before);
      expect(before.verifies).toBe(true);
      expect(before.learners.items).toHaveLength(2);
    }),
  ],
};
