/**
 * A populated service for the analytics tests: organizations A and B created through the
 * interface, learners provisioned into them through SCIM with their tokens, admin users invited
 * and accepted (an admin and a viewer of A, an admin of B), and a campaign and a simulation in
 * each organization recorded through the recorder.
 */
import { expect } from "vitest";
import type { AttackSimulation, Campaign } from "../../src/analytics/analytics-store.js";
import {
  ENTERPRISE_SCHEMA,
  createAnalyticsTestApp,
  scimUser,
  type AnalyticsTestApp,
  type Json,
  type TestAppOptions,
} from "./analytics-harness.js";

const DAY = 24 * 60 * 60 * 1000;

export interface Org {
  readonly id: string;
  readonly scim: { readonly baseUrl: string; readonly token: string };
}

export interface World {
  readonly t: AnalyticsTestApp;
  readonly orgA: Org;
  readonly orgB: Org;
  /** SCIM ids of A's learners alice, bob (inactive, Engineering) and carol, and B's dave. */
  readonly users: { readonly alice: string; readonly bob: string; readonly carol: string; readonly dave: string };
  /** API keys of the admin and the viewer of A, and the admin of B. */
  readonly keys: { readonly adminA: string; readonly viewerA: string; readonly adminB: string };
  /** Their admin-user ids. */
  readonly adminUsers: { readonly adminA: string; readonly viewerA: string; readonly adminB: string };
  readonly campaignA: Campaign;
  readonly campaignB: Campaign;
  readonly simulationA: AttackSimulation;
  readonly simulationB: AttackSimulation;
}

/** Creates an organization through the interface; returns its id and SCIM credentials. */
export async function createOrganization(t: AnalyticsTestApp, name: string): Promise<Org> {
  const response = await t.post("/organizations", { name });
  expect(response.status).toBe(201);
  const body = response.body as { organization: { id: string }; scim: { baseUrl: string; token: string } };
  return { id: body.organization.id, scim: body.scim };
}

/** Creates organization `id` under `parentId` (a root without); returns its SCIM credentials. */
export async function createInTree(t: AnalyticsTestApp, id: string, parentId?: string): Promise<Org> {
  const response = await t.post("/organizations", { name: id, id, ...(parentId === undefined ? {} : { parentId }) });
  expect(response.status, response.text).toBe(201);
  const body = response.body as { organization: Json; scim: { baseUrl: string; token: string } };
  expect(body.organization["parentId"]).toBe(parentId);
  return { id, scim: body.scim };
}

/** Provisions a learner through SCIM; returns its SCIM id. */
export async function provision(t: AnalyticsTestApp, org: Org, userName: string, extra: Json = {}): Promise<string> {
  const response = await t.send("POST", `/scim/Organizations/${org.id}/v2/Users`, {
    key: org.scim.token,
    body: scimUser(userName, extra),
    contentType: "application/scim+json",
  });
  expect(response.status).toBe(201);
  return (response.body as { id: string }).id;
}

/** Invites and accepts an admin user; returns its id and API key. */
export async function adminWithKey(
  t: AnalyticsTestApp,
  email: string,
  role: "admin" | "viewer",
  organizationIds: readonly string[],
  inviterKey?: string,
): Promise<{ id: string; key: string }> {
  const invited = await t.post("/admin-users/invite", { email, role, organizationIds }, inviterKey);
  expect(invited.status).toBe(201);
  const invitation = t.invitations.at(-1);
  expect(invitation?.adminUser.email).toBe(email);
  const accepted = await t.post("/invitations/accept", { code: invitation?.code }, null);
  expect(accepted.status).toBe(200);
  const body = accepted.body as { adminUser: { id: string }; apiKey: string };
  return { id: body.adminUser.id, key: body.apiKey };
}

function department(name: string): Json {
  return { [ENTERPRISE_SCHEMA]: { department: name } };
}

/** Builds the world on a fresh app. */
export async function createWorld(options: TestAppOptions = {}): Promise<World> {
  const t = await createAnalyticsTestApp(options);
  const orgA = await createOrganization(t, "Acme");
  const orgB = await createOrganization(t, "Globex");
  const alice = await provision(t, orgA, "alice", department("Sales"));
  const bob = await provision(t, orgA, "bob", { ...department("Engineering"), active: false });
  const carol = await provision(t, orgA, "carol");
  const dave = await provision(t, orgB, "dave", department("Sales"));
  const adminA = await adminWithKey(t, "admin-a@example.com", "admin", [orgA.id]);
  const viewerA = await adminWithKey(t, "viewer-a@example.com", "viewer", [orgA.id]);
  const adminB = await adminWithKey(t, "admin-b@example.com", "admin", [orgB.id]);

  const now = t.clock.now().getTime();
  const iso = (offset: number): string => new Date(now + offset).toISOString();
  const { recorder } = t;
  const campaignA = await recorder.createCampaign(orgA.id, {
    name: "Phishing basics",
    description: "Spot a lure",
    startsAt: iso(-10 * DAY),
    dueAt: iso(-DAY),
  });
  for (const user of [alice, bob, carol]) await recorder.enrol(campaignA.id, user);
  await recorder.recordProgress(campaignA.id, alice, { progressPercent: 100, score: 90 });
  await recorder.recordProgress(campaignA.id, bob, { progressPercent: 40 });
  const campaignB = await recorder.createCampaign(orgB.id, { name: "Passwords", startsAt: iso(-DAY) });
  await recorder.enrol(campaignB.id, dave);

  const simulationA = await recorder.createSimulation(orgA.id, { name: "Parcel notice", template: "parcel", launchedAt: iso(-2 * DAY) });
  for (const type of ["sent", "delivered", "opened", "clicked"] as const) await recorder.recordSimulationEvent(simulationA.id, alice, type);
  for (const type of ["sent", "delivered", "reported"] as const) await recorder.recordSimulationEvent(simulationA.id, bob, type);
  await recorder.recordSimulationEvent(simulationA.id, carol, "sent");
  const simulationB = await recorder.createSimulation(orgB.id, { name: "Invoice", launchedAt: iso(-DAY) });
  await recorder.recordSimulationEvent(simulationB.id, dave, "sent");

  await recorder.addFeedback({ kind: "campaign", id: campaignA.id }, alice, { comment: "Useful, =1+1 though", rating: 5 });
  await recorder.addFeedback({ kind: "campaign", id: campaignA.id }, bob, { comment: "Too long" });
  await recorder.addFeedback({ kind: "simulation", id: simulationA.id }, bob, { comment: "Reported it at once", rating: 4 });
  await recorder.addFeedback({ kind: "campaign", id: campaignB.id }, dave, { comment: "Fine" });

  return {
    t,
    orgA,
    orgB,
    users: { alice, bob, carol, dave },
    keys: { adminA: adminA.key, viewerA: viewerA.key, adminB: adminB.key },
    adminUsers: { adminA: adminA.id, viewerA: viewerA.id, adminB: adminB.id },
    campaignA,
    campaignB,
    simulationA,
    simulationB,
  };
}
