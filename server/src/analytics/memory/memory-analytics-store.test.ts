import { describe, expect, it } from "vitest";
import { createTokenStore } from "scimkit";
import { memoryStore } from "scimkit/memory";
import { eventLoopSlice, type EventLoopSlice, type ResourceStore } from "scimkit/store";
import { userAttributes, uniqueKeys } from "../scim-attributes.fixture.js";
import type { AnalyticsStore, Organization } from "../analytics-store.js";
import { describeAnalyticsStoreConformance } from "@scimkit/server/testkit";
import { memoryAnalyticsStore } from "./memory-analytics-store.js";

describeAnalyticsStoreConformance("memory", () => {
  const resources = memoryStore();
  const tokens = createTokenStore();
  return { analytics: memoryAnalyticsStore({ resources, tokens }), resources, tokens, close: async () => {} };
});

// The same checks through a ResourceStore that has no deleteOrganization and no cursor paging,
// as a host's own store may be: learners are then read by index and an organization is emptied
// one resource at a time.
describeAnalyticsStoreConformance("memory over a minimal ResourceStore", () => {
  const full = memoryStore();
  const resources: ResourceStore = {
    capabilities: { sort: true, cursor: false },
    create: (request) => full.create(request),
    get: (request) => full.get(request),
    list: (request) => full.list(request),
    update: (request) => full.update(request),
    delete: (request) => full.delete(request),
  };
  const tokens = createTokenStore();
  return { analytics: memoryAnalyticsStore({ resources, tokens }), resources, tokens, close: async () => {} };
});

const T0 = "2024-01-01T00:00:00.000Z";
const T1 = "2024-01-02T00:00:00.000Z";

function setup(resources: ResourceStore = memoryStore()): { readonly analytics: AnalyticsStore; readonly resources: ResourceStore } {
  return { analytics: memoryAnalyticsStore({ resources, tokens: createTokenStore() }), resources };
}

async function addUser(resources: ResourceStore, orgId: string, id: string, extra: Record<string, unknown> = {}): Promise<void> {
  const attributes = userAttributes(`user-${id}`, extra);
  await resources.create({
    orgId,
    resourceType: "User",
    id,
    now: T0,
    attributes,
    uniqueKeys: uniqueKeys("User", attributes),
    unknownMembers: "ignore",
  });
}

const acme: Organization = { id: "org-a", name: "Acme", status: "active", createdAt: T0, updatedAt: T0 };

/** Changes every property it can reach, ignoring what refuses (a frozen object is not aliasing). */
function scribble(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach(scribble);
    try {
      value.push("scribbled");
    } catch {
      // A frozen array cannot alias the store either.
    }
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const element = record[key];
    if (typeof element === "object" && element !== null) scribble(element);
    else {
      try {
        record[key] = typeof element === "number" ? -1 : "scribbled";
      } catch {
        // As above.
      }
    }
  }
}

/** Everything the store holds about the fixture of `populate`, read afresh. */
async function readEverything(analytics: AnalyticsStore) {
  const all = { all: true } as const;
  const rows: unknown[] = [];
  for await (const page of analytics.readReportRows("op-1")) rows.push(...page);
  return {
    organizations: await analytics.listOrganizations(all, { limit: 10 }),
    organization: await analytics.getOrganization(all, acme.id),
    adminUsers: await analytics.listAdminUsers(all, { limit: 10 }),
    adminUser: await analytics.getAdminUser(all, "admin-1"),
    byEmail: await analytics.findAdminUserByEmail("ada@example.test"),
    key: await analytics.findApiKeyByHash("a".repeat(64)),
    learners: await analytics.listLearners(all, {}, { limit: 10 }),
    campaigns: await analytics.listCampaigns(all, { limit: 10 }),
    campaign: await analytics.getCampaign(all, "campaign-1"),
    enrolments: await analytics.listEnrolments("campaign-1", {}, T1, { limit: 10 }),
    enrolment: await analytics.getEnrolment("campaign-1", "u1", T1),
    simulation: await analytics.getSimulation(all, "simulation-1"),
    recipients: await analytics.listRecipients("simulation-1", {}, { limit: 10 }),
    recipient: await analytics.getRecipient("simulation-1", "u1"),
    feedback: await analytics.listFeedback({ kind: "campaign", id: "campaign-1" }, { limit: 10 }),
    operation: await analytics.getOperation(all, "op-1"),
    rows,
  };
}

describe("memoryAnalyticsStore: copies", () => {
  async function populate(): Promise<{ readonly analytics: AnalyticsStore; readonly inputs: unknown[] }> {
    const { analytics, resources } = setup();
    await addUser(resources, acme.id, "u1", { displayName: "Ada", emails: [{ value: "ada@acme.test" }] });
    const organization = { ...acme };
    const adminUser = {
      id: "admin-1",
      email: "ada@example.test",
      role: "admin",
      organizationIds: [acme.id],
      status: "invited",
      invitedAt: T0,
      updatedAt: T0,
    } as const;
    const adminCopy = { ...adminUser, organizationIds: [...adminUser.organizationIds] };
    const key = { id: "key-1", subject: { kind: "admin", adminUserId: "admin-1" }, hash: "a".repeat(64), createdAt: T0 } as const;
    const keyCopy = { ...key, subject: { ...key.subject } };
    const campaign = { id: "campaign-1", orgId: acme.id, name: "Basics", startsAt: T0, createdAt: T0 };
    const enrolment = {
      campaignId: "campaign-1",
      userId: "u1",
      status: "in_progress",
      progressPercent: 50,
      score: 70,
      enrolledAt: T0,
      startedAt: T0,
      updatedAt: T0,
    } as const;
    const enrolmentCopy = { ...enrolment };
    const simulation = { id: "simulation-1", orgId: acme.id, name: "Parcel", launchedAt: T0, createdAt: T0 };
    const comment = {
      id: "feedback-1",
      subject: { kind: "campaign", id: "campaign-1" },
      userId: "u1",
      comment: "Good",
      rating: 5,
      createdAt: T0,
    } as const;
    const commentCopy = { ...comment, subject: { ...comment.subject } };
    const operation = {
      id: "op-1",
      kind: "campaign-users-report",
      orgId: acme.id,
      subjectId: "campaign-1",
      status: "queued",
      progress: { done: 0 },
      createdAt: T0,
    } as const;
    const operationCopy = { ...operation, progress: { ...operation.progress } };
    const rows = [{ userId: "u1", completed: false, score: 70 }];
    await analytics.createOrganization(organization);
    await analytics.createAdminUser(adminCopy, { codeHash: "c".repeat(64), expiresAt: T1 });
    await analytics.insertApiKey(keyCopy);
    await analytics.createCampaign(campaign);
    await analytics.putEnrolment(acme.id, enrolmentCopy);
    await analytics.createSimulation(simulation);
    await analytics.recordSimulationEvent(acme.id, { simulationId: "simulation-1", userId: "u1", type: "sent", at: T0 });
    await analytics.addFeedback(acme.id, commentCopy);
    await analytics.createOperation(operationCopy);
    await analytics.appendReportRows("op-1", rows);
    return { analytics, inputs: [organization, adminCopy, keyCopy, campaign, enrolmentCopy, simulation, commentCopy, operationCopy, rows] };
  }

  it("keeps its own copy of what a caller gave it", async () => {
    const { analytics, inputs } = await populate();
    // A deep copy: were the store to hand out its own objects, `before` would change with them.
    const before = structuredClone(await readEverything(analytics));
    for (const input of inputs) scribble(input);
    expect(await readEverything(analytics)).toEqual(before);
    expect(before.organization?.name).toBe("Acme");
    expect(before.rows).toEqual([{ userId: "u1", completed: false, score: 70 }]);
  });

  it("returns copies the caller may change without changing the store", async () => {
    const { analytics } = await populate();
    // A deep copy: were the store to hand out its own objects, `before` would change with them.
    const before = structuredClone(await readEverything(analytics));
    scribble(await readEverything(analytics));
    expect(await readEverything(analytics)).toEqual(before);
    expect(before.adminUser?.organizationIds).toEqual([acme.id]);
    expect(before.enrolment?.learner?.displayName).toBe("Ada");
  });

  it("returns a fresh object from every write that answers with the record", async () => {
    const { analytics } = await populate();
    const updated = await analytics.updateOrganization({ all: true }, acme.id, { name: "Acme 2", updatedAt: T1 });
    const user = await analytics.updateAdminUser({ all: true }, "admin-1", { role: "viewer", updatedAt: T1 });
    scribble(updated);
    scribble(user);
    expect((await analytics.getOrganization({ all: true }, acme.id))?.name).toBe("Acme 2");
    expect(await analytics.getAdminUser({ all: true }, "admin-1")).toMatchObject({
      role: "viewer",
      organizationIds: [acme.id],
      email: "ada@example.test",
    });
  });
});

describe("memoryAnalyticsStore: learners", () => {
  const cases: readonly (readonly [string, () => ResourceStore])[] = [
    ["a ResourceStore with cursors", () => memoryStore()],
    [
      "a ResourceStore without cursors",
      () => {
        const full = memoryStore();
        return { ...full, capabilities: { cursor: false }, list: (request) => full.list(request) };
      },
    ],
  ];
  for (const [label, makeResources] of cases) {
    it(`walks an organization's users a chunk at a time over ${label}, without gaps or repeats`, async () => {
      const { analytics, resources } = setup(makeResources());
      await analytics.createOrganization(acme);
      const ids: string[] = [];
      for (let index = 0; index < 2_500; index += 1) {
        const id = `u${String(index).padStart(5, "0")}`;
        ids.push(id);
        // Every 400th user is inactive, so a filtered page has to read past several chunks.
        await addUser(resources, acme.id, id, index % 400 === 0 ? { active: false } : {});
      }
      const seen: string[] = [];
      let after: string | undefined;
      do {
        const page = await analytics.listLearners({ all: true }, {}, after === undefined ? { limit: 700 } : { limit: 700, after });
        seen.push(...page.items.map((learner) => learner.id));
        after = page.next;
      } while (after !== undefined);
      expect(seen).toEqual(ids);
      const inactive = await analytics.listLearners({ all: true }, { active: false }, { limit: 3 });
      expect(inactive.items.map((learner) => learner.id)).toEqual(["u00000", "u00400", "u00800"]);
      const rest = await analytics.listLearners({ all: true }, { active: false }, { limit: 10, after: inactive.next });
      expect(rest).toEqual({ items: expect.any(Array) });
      expect(rest.items.map((learner) => learner.id)).toEqual(["u01200", "u01600", "u02000", "u02400"]);
    });
  }
});

describe("memoryAnalyticsStore over a large subtree (issue 27)", () => {
  /** A company with `divisions` divisions, a learner in each, and the store's slices as `slice` gives them. */
  async function company(divisions: number, slice?: () => EventLoopSlice) {
    const resources = memoryStore();
    const analytics = memoryAnalyticsStore({
      resources,
      tokens: createTokenStore(),
      ...(slice === undefined ? {} : { eventLoopSlice: slice }),
    });
    await analytics.createOrganization({ ...acme, id: "root" });
    for (let index = 0; index < divisions; index += 1) {
      const id = `division-${String(index).padStart(4, "0")}`;
      await analytics.createOrganization({ ...acme, id, parentId: "root" });
      await addUser(resources, id, `u${index}`);
    }
    return analytics;
  }

  it("gives the event loop turns while it sums a subtree, so other work runs before it finishes", async () => {
    const analytics = await company(40, () => eventLoopSlice(0));
    const order: string[] = [];
    const summary = analytics.treeSummary({ all: true }, "root", { asOf: T1 }).then((result) => {
      order.push("summary");
      return result;
    });
    setImmediate(() => order.push("another request"));
    const result = await summary;
    expect(order).toEqual(["another request", "summary"]);
    expect(result?.organizations).toHaveLength(41);
    expect(result?.totals.learners).toBe(40);
  });

  it("answers a scope of 2,001 organizations by lookup: the subtree, its summary and its lists as before", async () => {
    const analytics = await company(2000);
    const scope = { orgIds: [...(await analytics.listSubtreeIds(["root"]))] };
    expect(scope.orgIds).toHaveLength(2001);
    const page = await analytics.listOrganizations(scope, { limit: 5, after: "division-1997" });
    expect(page.items.map((organization) => organization.id)).toEqual(["division-1998", "division-1999", "root"]);
    const summary = await analytics.treeSummary(scope, "root", { asOf: T1 });
    expect(summary?.totals.learners).toBe(2000);
    expect(summary?.organizations.map((row) => row.orgId).slice(0, 2)).toEqual(["division-0000", "division-0001"]);
    // Moving a division away takes it out of the subtree at once: the index of children follows the tree.
    await analytics.createOrganization({ ...acme, id: "elsewhere" });
    await analytics.updateOrganization({ all: true }, "division-0000", { parentId: "elsewhere", updatedAt: T1 });
    expect(await analytics.listSubtreeIds(["elsewhere"])).toEqual(["division-0000", "elsewhere"]);
    expect(await analytics.listSubtreeIds(["root"])).toHaveLength(2000);
  });
});
