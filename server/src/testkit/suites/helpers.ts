/**
 * What every analytics suite needs: records built the way the HTTP layer and the recorder build
 * them (UUID v7 ids chosen by the caller, ISO 8601 UTC times with milliseconds), learners
 * provisioned through the real `ResourceStore` with canonical attributes and unique keys, and a
 * walker that checks keyset paging on every list it reads.
 */
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { v7 } from "uuid";
import type { StoredResource } from "scimkit/store";
import { groupAttributes, uniqueKeys, userAttributes } from "scimkit/testkit";
import type {
  AdminUser,
  AttackSimulation,
  Campaign,
  Enrolment,
  FeedbackComment,
  Operation,
  OrgScope,
  Organization,
  Page,
  PageRequest,
  ReportRow,
  StoredApiKey,
} from "@scimkit/server";
import type { AnalyticsConformanceContext } from "../analytics-conformance-test.js";

export const ENTERPRISE_URN = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const CORE_USER_URN = "urn:ietf:params:scim:schemas:core:2.0:User";

/** Every organization: the operator's scope. */
export const ALL: OrgScope = { all: true };

/** The scope of an admin user of these organizations. */
export function only(...orgIds: readonly string[]): OrgScope {
  return { orgIds };
}

/** A fresh id, as the HTTP layer and the recorder assign them. */
export function newId(): string {
  return v7();
}

// A fixed origin keeps failures reproducible and every time canonical (`toISOString()` form).
const ORIGIN = Date.UTC(2024, 0, 1);

/** The ISO 8601 time `minutes` after 2024-01-01T00:00:00.000Z. */
export function time(minutes: number): string {
  return new Date(ORIGIN + minutes * 60_000).toISOString();
}

/** Ids in keyset order: by UTF-16 code unit, which for UUIDs is also byte and `COLLATE "C"` order. */
export function byId(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The ids of records, in order. */
export function idsOf(items: readonly { readonly id: string }[]): string[] {
  return items.map((item) => item.id);
}

/** Creates an organization (active unless told otherwise) and returns it as stored. */
export async function addOrganization(context: AnalyticsConformanceContext, overrides: Partial<Organization> = {}): Promise<Organization> {
  const organization: Organization = {
    id: newId(),
    name: "Acme",
    status: "active",
    createdAt: time(0),
    updatedAt: time(0),
    ...overrides,
  };
  await context.analytics.createOrganization(organization);
  return organization;
}

/** An invited admin user and the digest of its invitation code. */
export interface InvitedAdmin {
  readonly user: AdminUser;
  readonly codeHash: string;
}

/** A random stand-in for `hashToken(code)`: 64 lower-case hex characters. */
export function randomHash(): string {
  return randomBytes(32).toString("hex");
}

/** Creates an invited admin user (its e-mail random unless given) with a pending invitation. */
export async function addAdminUser(
  context: AnalyticsConformanceContext,
  overrides: Partial<AdminUser> = {},
  invitation: { readonly codeHash?: string; readonly expiresAt?: string } = {},
): Promise<InvitedAdmin> {
  const id = overrides.id ?? newId();
  const expiresAt = invitation.expiresAt ?? overrides.invitationExpiresAt ?? time(7 * 24 * 60);
  const user: AdminUser = {
    id,
    email: `admin-${id}@example.test`,
    role: "admin",
    organizationIds: [],
    status: "invited",
    invitedAt: time(0),
    invitationExpiresAt: expiresAt,
    updatedAt: time(0),
    ...overrides,
  };
  const codeHash = invitation.codeHash ?? randomHash();
  await context.analytics.createAdminUser(user, { codeHash, expiresAt });
  return { user, codeHash };
}

/** An API key record with a fresh id and digest. */
export function apiKey(subject: StoredApiKey["subject"], createdAt = time(0)): StoredApiKey {
  return { id: newId(), subject, hash: randomHash(), createdAt };
}

/** Options of `addLearner`. */
export interface LearnerOptions {
  readonly id?: string;
  readonly now?: string;
}

/**
 * Provisions a SCIM user into `orgId` through the ResourceStore, as the SCIM router would:
 * canonical attributes from the real validator, unique keys from the schema.
 */
export async function addLearner(
  context: Pick<AnalyticsConformanceContext, "resources">,
  orgId: string,
  userName: string,
  rest: Readonly<Record<string, unknown>> = {},
  options: LearnerOptions = {},
): Promise<StoredResource> {
  const attributes = userAttributes(userName, rest);
  const result = await context.resources.create({
    orgId,
    resourceType: "User",
    id: options.id ?? newId(),
    now: options.now ?? time(1),
    attributes,
    uniqueKeys: uniqueKeys("User", attributes),
    unknownMembers: "ignore",
  });
  return result.resource;
}

/** Provisions learners `u0`, `u1`, … (`count` of them) into `orgId`, one after another; their ids in that order. */
export async function addLearners(context: AnalyticsConformanceContext, orgId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) ids.push((await addLearner(context, orgId, `u${index}`)).id);
  return ids;
}

/** The client body of a user in a department (enterprise extension). */
export function inDepartment(department: string, rest: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return { schemas: [CORE_USER_URN, ENTERPRISE_URN], [ENTERPRISE_URN]: { department }, ...rest };
}

/** Provisions a SCIM group with members into `orgId`. */
export async function addGroup(
  context: AnalyticsConformanceContext,
  orgId: string,
  displayName: string,
  members: readonly string[] = [],
): Promise<StoredResource> {
  const attributes = groupAttributes(displayName);
  const result = await context.resources.create({
    orgId,
    resourceType: "Group",
    id: newId(),
    now: time(2),
    attributes,
    uniqueKeys: uniqueKeys("Group", attributes),
    members,
    unknownMembers: "ignore",
  });
  return result.resource;
}

/** Creates a campaign of `orgId`. */
export async function addCampaign(
  context: AnalyticsConformanceContext,
  orgId: string,
  overrides: Partial<Campaign> = {},
): Promise<Campaign> {
  const campaign: Campaign = { id: newId(), orgId, name: "Phishing basics", startsAt: time(0), createdAt: time(0), ...overrides };
  await context.analytics.createCampaign(campaign);
  return campaign;
}

/** An enrolment record; not started unless told otherwise. */
export function enrolment(campaignId: string, userId: string, overrides: Partial<Enrolment> = {}): Enrolment {
  return {
    campaignId,
    userId,
    status: "not_started",
    progressPercent: 0,
    enrolledAt: time(1),
    updatedAt: time(1),
    ...overrides,
  };
}

/** A completed enrolment with `score`. */
export function completed(campaignId: string, userId: string, score?: number): Enrolment {
  return enrolment(campaignId, userId, {
    status: "completed",
    progressPercent: 100,
    ...(score === undefined ? {} : { score }),
    startedAt: time(2),
    completedAt: time(3),
    updatedAt: time(3),
  });
}

/** An enrolment in progress, with `score` when given. */
export function inProgress(campaignId: string, userId: string, score?: number): Enrolment {
  return enrolment(campaignId, userId, {
    status: "in_progress",
    progressPercent: 40,
    ...(score === undefined ? {} : { score }),
    startedAt: time(2),
    updatedAt: time(2),
  });
}

/** Creates a simulation of `orgId`. */
export async function addSimulation(
  context: AnalyticsConformanceContext,
  orgId: string,
  overrides: Partial<AttackSimulation> = {},
): Promise<AttackSimulation> {
  const simulation: AttackSimulation = {
    id: newId(),
    orgId,
    name: "Parcel notice",
    template: "parcel-2024",
    launchedAt: time(0),
    createdAt: time(0),
    ...overrides,
  };
  await context.analytics.createSimulation(simulation);
  return simulation;
}

/** Creates a feedback comment of `orgId` on `subject`. */
export async function addFeedback(
  context: AnalyticsConformanceContext,
  orgId: string,
  subject: FeedbackComment["subject"],
  userId: string,
  overrides: Partial<FeedbackComment> = {},
): Promise<FeedbackComment> {
  const comment: FeedbackComment = { id: newId(), subject, userId, comment: "Useful.", createdAt: time(5), ...overrides };
  await context.analytics.addFeedback(orgId, comment);
  return comment;
}

/** Creates a queued report operation of `orgId` about `subjectId`. */
export async function addOperation(
  context: AnalyticsConformanceContext,
  orgId: string,
  subjectId: string,
  overrides: Partial<Operation> = {},
): Promise<Operation> {
  const operation: Operation = {
    id: newId(),
    kind: "campaign-users-report",
    orgId,
    subjectId,
    status: "queued",
    progress: { done: 0 },
    createdAt: time(0),
    ...overrides,
  };
  await context.analytics.createOperation(operation);
  return operation;
}

/** Every stored report row of an operation, and how many pages they came in. */
export async function readAllRows(
  context: AnalyticsConformanceContext,
  operationId: string,
): Promise<{ readonly rows: ReportRow[]; readonly pages: number }> {
  const rows: ReportRow[] = [];
  let pages = 0;
  for await (const page of context.analytics.readReportRows(operationId)) {
    pages += 1;
    rows.push(...page);
  }
  return { rows, pages };
}

/** What `walkPages` saw. */
export interface Walk<T> {
  readonly items: T[];
  /** The number of requests it took, the last one included. */
  readonly requests: number;
}

/**
 * Reads a whole keyset list `limit` at a time, checking the paging rules on the way: every page
 * but the last holds exactly `limit` items and has a `next`, the last has no `next`, and no item
 * comes twice (by `keyOf`).
 */
export async function walkPages<T>(
  read: (page: PageRequest) => Promise<Page<T>>,
  limit: number,
  keyOf: (item: T) => string,
): Promise<Walk<T>> {
  const items: T[] = [];
  const seen = new Set<string>();
  let after: string | undefined;
  for (let requests = 1; requests <= 10_000; requests += 1) {
    const page = await read(after === undefined ? { limit } : { limit, after });
    expect(page.items.length, "a page holds at most `limit` items").toBeLessThanOrEqual(limit);
    for (const item of page.items) {
      const key = keyOf(item);
      expect(seen.has(key), `${key} came twice`).toBe(false);
      seen.add(key);
      items.push(item);
    }
    if (page.next === undefined) return { items, requests };
    expect(page.items.length, "a page with a next is full").toBe(limit);
    after = page.next;
  }
  throw new Error("walkPages: the list did not end after 10,000 pages");
}

/** Reads a whole keyset list in one request of the largest size. */
export async function readAll<T>(read: (page: PageRequest) => Promise<Page<T>>): Promise<T[]> {
  const page = await read({ limit: 1000 });
  expect(page.next, "a list under 1,000 items fits one page").toBeUndefined();
  return [...page.items];
}

/** Awaits `operation` and checks that it rejected; returns what it rejected with. */
export async function rejectionOf(operation: Promise<unknown>): Promise<unknown> {
  try {
    await operation;
  } catch (error) {
    return error;
  }
  expect.fail("expected the call to reject, but it resolved");
}

/** Checks that `operation` rejects with an error whose `code` is `"conflict"`. */
export async function expectConflict(operation: Promise<unknown>): Promise<void> {
  const error = await rejectionOf(operation);
  expect(error, "the rejection is an object").toBeTypeOf("object");
  expect((error as { readonly code?: unknown }).code).toBe("conflict");
}
