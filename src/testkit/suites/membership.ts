/**
 * Group membership (architecture §3, §4): members are ids of resources of the same organization, their
 * type found by the store; writes are deltas or replacements reporting what really changed;
 * unknown ids are ignored-and-reported or rejected; deleting a resource removes it from every group.
 */
import { expect } from "vitest";
import { ScimType } from "../../errors.js";
import type { MembershipDelta } from "../../scim/patch/membership-delta.js";
import type { UnknownMemberPolicy, WriteResult } from "../../store/resource-store.js";
import { conformanceTest, type ConformanceContext, type ConformanceSuite } from "../conformance-test.js";
import {
  countResources,
  createGroup,
  createUser,
  expectScimError,
  groupAttributes,
  idsOf,
  listResources,
  memberIds,
  mustGet,
  newId,
  uniqueKeys,
} from "./helpers.js";

interface MembershipUpdate {
  readonly membership?: MembershipDelta;
  readonly displayName?: string;
  readonly unknownMembers?: UnknownMemberPolicy;
  readonly members?: boolean;
  readonly now?: string;
}

function updateGroup(context: ConformanceContext, id: string, update: MembershipUpdate): Promise<WriteResult | undefined> {
  const attributes = update.displayName === undefined ? undefined : groupAttributes(update.displayName);
  return context.store.update({
    orgId: context.orgId,
    resourceType: "Group",
    id,
    now: update.now ?? context.now(),
    ...(attributes ? { attributes, uniqueKeys: uniqueKeys("Group", attributes) } : {}),
    ...(update.membership ? { membership: update.membership } : {}),
    unknownMembers: update.unknownMembers ?? "ignore",
    members: update.members ?? true,
  });
}

const delta = (add: readonly string[], remove: readonly string[] = []): MembershipDelta => ({ kind: "delta", add, remove });

async function users(context: ConformanceContext, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) ids.push((await createUser(context, `member${index}@acme.test`)).id);
  return ids;
}

export const membershipSuite: ConformanceSuite = {
  title: "membership",
  tests: [
    conformanceTest("create with members stores them in order with their types (User, Group)", async (context) => {
      const [alice = "", bob = ""] = await users(context, 2);
      const { resource: nested } = await createGroup(context, "Nested");
      const result = await createGroup(context, "Engineers", { members: [bob, nested.id, alice] });
      const expected = [
        { value: bob, type: "User" },
        { value: nested.id, type: "Group" },
        { value: alice, type: "User" },
      ];
      expect(result.resource.members).toEqual(expected);
      expect(result.membership?.added).toEqual([bob, nested.id, alice]);
      expect(result.membership?.removed).toEqual([]);
      expect(result.membership?.ignored).toEqual([]);
      expect((await mustGet(context, "Group", result.resource.id, { members: true })).members).toEqual(expected);
    }),

    conformanceTest("unknown member ids are ignored and reported under the ignore policy", async (context) => {
      const [alice = ""] = await users(context, 1);
      const unknown = newId();
      const created = await createGroup(context, "Engineers", { members: [unknown, alice], unknownMembers: "ignore" });
      expect(created.membership?.ignored).toEqual([unknown]);
      expect(created.membership?.added).toEqual([alice]);
      expect(memberIds(await mustGet(context, "Group", created.resource.id, { members: true }))).toEqual([alice]);
      const another = newId();
      const updated = await updateGroup(context, created.resource.id, { membership: delta([another]), unknownMembers: "ignore" });
      expect(updated?.membership?.ignored).toEqual([another]);
      expect(updated?.membership?.added).toEqual([]);
      expect(memberIds(await mustGet(context, "Group", created.resource.id, { members: true }))).toEqual([alice]);
    }),

    conformanceTest(
      "unknown member ids on create fail with 400 invalidValue under the reject policy and write nothing",
      async (context) => {
        const [alice = ""] = await users(context, 1);
        await expectScimError(
          createGroup(context, "Engineers", { members: [alice, newId()], unknownMembers: "reject" }),
          400,
          ScimType.invalidValue,
        );
        expect(await countResources(context, "Group")).toBe(0);
        // The failed create must not have claimed the displayName either.
        const { resource } = await createGroup(context, "Engineers");
        expect(resource.attributes["displayName"]).toBe("Engineers");
      },
    ),

    conformanceTest(
      "unknown member ids on update fail with 400 invalidValue under the reject policy and change nothing",
      async (context) => {
        const [alice = "", bob = ""] = await users(context, 2);
        const { resource: group } = await createGroup(context, "Engineers", { members: [alice] });
        await expectScimError(
          updateGroup(context, group.id, { displayName: "Renamed", membership: delta([bob, newId()], [alice]), unknownMembers: "reject" }),
          400,
          ScimType.invalidValue,
        );
        const read = await mustGet(context, "Group", group.id, { members: true });
        expect(memberIds(read)).toEqual([alice]);
        expect(read.attributes).toEqual(group.attributes);
        expect(read.version).toBe(group.version);
        await expectScimError(
          updateGroup(context, group.id, { membership: { kind: "replace", ids: [newId()] }, unknownMembers: "reject" }),
          400,
          ScimType.invalidValue,
        );
        expect(memberIds(await mustGet(context, "Group", group.id, { members: true }))).toEqual([alice]);
      },
    ),

    conformanceTest("a delta adds and removes, reporting only real changes", async (context) => {
      const [a = "", b = "", c = "", d = ""] = await users(context, 4);
      const { resource: group } = await createGroup(context, "Engineers", { members: [a, b] });
      // a is already a member and d is not one: neither counts as a change.
      const result = await updateGroup(context, group.id, { membership: delta([a, c], [b, d]) });
      expect(result?.membership?.added).toEqual([c]);
      expect(result?.membership?.removed).toEqual([b]);
      expect(result?.membership?.ignored).toEqual([]);
      expect(result?.resource.members?.map((member) => member.value)).toEqual([a, c]);
      expect(memberIds(await mustGet(context, "Group", group.id, { members: true }))).toEqual([a, c]);
    }),

    conformanceTest("replace sets exactly the given members and reports the difference", async (context) => {
      const [a = "", b = "", c = ""] = await users(context, 3);
      const { resource: group } = await createGroup(context, "Engineers", { members: [a, b] });
      const result = await updateGroup(context, group.id, { membership: { kind: "replace", ids: [c, b] } });
      expect(result?.membership?.added).toEqual([c]);
      expect(result?.membership?.removed).toEqual([a]);
      // Whether a kept member keeps its place is not part of the contract; the set is.
      expect(memberIds(await mustGet(context, "Group", group.id, { members: true })).sort()).toEqual([b, c].sort());
      const cleared = await updateGroup(context, group.id, { membership: { kind: "replace", ids: [] } });
      expect([...(cleared?.membership?.removed ?? [])].sort()).toEqual([b, c].sort());
      expect((await mustGet(context, "Group", group.id, { members: true })).members).toEqual([]);
    }),

    conformanceTest("adding a member twice keeps one", async (context) => {
      const [a = "", b = ""] = await users(context, 2);
      const { resource: group } = await createGroup(context, "Engineers", { members: [a] });
      const first = await updateGroup(context, group.id, { membership: delta([b]) });
      expect(first?.membership?.added).toEqual([b]);
      const second = await updateGroup(context, group.id, { membership: delta([b, a]) });
      expect(second?.membership?.added).toEqual([]);
      expect(memberIds(await mustGet(context, "Group", group.id, { members: true }))).toEqual([a, b]);
    }),

    conformanceTest("removing an id that names no resource succeeds under either policy", async (context) => {
      const [a = ""] = await users(context, 1);
      const { resource: group } = await createGroup(context, "Engineers", { members: [a] });
      for (const unknownMembers of ["ignore", "reject"] as const) {
        const result = await updateGroup(context, group.id, { membership: delta([], [newId()]), unknownMembers });
        expect(result?.membership?.removed, unknownMembers).toEqual([]);
      }
      expect(memberIds(await mustGet(context, "Group", group.id, { members: true }))).toEqual([a]);
    }),

    conformanceTest("members: false never returns members, from any call", async (context) => {
      const [a = ""] = await users(context, 1);
      const created = await createGroup(context, "Engineers", { members: [a] });
      const read = await mustGet(context, "Group", created.resource.id, { members: false });
      expect(Object.hasOwn(read, "members"), "get with members: false").toBe(false);
      const updated = await updateGroup(context, created.resource.id, { displayName: "Builders", members: false });
      expect(updated && Object.hasOwn(updated.resource, "members"), "update with members: false").toBe(false);
      const listed = await listResources(context, "Group", { members: false });
      expect(
        listed.resources.map((resource) => Object.hasOwn(resource, "members")),
        "list with members: false",
      ).toEqual([false]);
      const delta1 = await updateGroup(context, created.resource.id, { membership: delta([], [a]), members: false });
      expect(delta1 && Object.hasOwn(delta1.resource, "members"), "delta with members: false").toBe(false);
      expect(delta1?.membership?.removed).toEqual([a]);
    }),

    conformanceTest("members: true returns members from get, update and list; an empty group has []", async (context) => {
      const [a = "", b = ""] = await users(context, 2);
      const { resource: full } = await createGroup(context, "Engineers", { members: [a, b] });
      const { resource: empty } = await createGroup(context, "Empty");
      const expected = [
        { value: a, type: "User" },
        { value: b, type: "User" },
      ];
      expect((await mustGet(context, "Group", full.id, { members: true })).members).toEqual(expected);
      expect((await mustGet(context, "Group", empty.id, { members: true })).members).toEqual([]);
      const renamed = await updateGroup(context, full.id, { displayName: "Builders", members: true });
      expect(renamed?.resource.members).toEqual(expected);
      const listed = await listResources(context, "Group", { members: true, filter: `members.value eq "${a}"` });
      expect(idsOf(listed.resources)).toEqual([full.id]);
      expect(listed.resources[0]?.members).toEqual(expected);
    }),

    conformanceTest("a membership change bumps the version and lastModified", async (context) => {
      const [a = ""] = await users(context, 1);
      const { resource: group } = await createGroup(context, "Engineers");
      const now = context.now();
      const added = await updateGroup(context, group.id, { membership: delta([a]), now });
      expect(added?.resource.version).not.toBe(group.version);
      expect(added?.resource.lastModified).toBe(now);
      expect(added?.resource.attributes).toEqual(group.attributes);
      const read = await mustGet(context, "Group", group.id);
      expect(read.version).toBe(added?.resource.version);
      expect(read.lastModified).toBe(now);
    }),

    conformanceTest("deleting a user removes it from every group of the organization and bumps their versions", async (context) => {
      const [a = "", b = ""] = await users(context, 2);
      const { resource: first } = await createGroup(context, "Engineers", { members: [a, b] });
      const { resource: second } = await createGroup(context, "Everyone", { members: [b, a] });
      const { resource: unrelated } = await createGroup(context, "Others", { members: [b] });
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "User", id: a })).toBe(true);
      for (const group of [first, second]) {
        const read = await mustGet(context, "Group", group.id, { members: true });
        expect(memberIds(read)).toEqual([b]);
        expect(read.version, "the group's membership changed").not.toBe(group.version);
      }
      const untouched = await mustGet(context, "Group", unrelated.id, { members: true });
      expect(memberIds(untouched)).toEqual([b]);
      expect(untouched.version).toBe(unrelated.version);
      expect((await listResources(context, "Group", { filter: `members.value eq "${a}"` })).totalResults).toBe(0);
    }),

    conformanceTest("deleting a group removes it from the groups that nest it", async (context) => {
      const [a = ""] = await users(context, 1);
      const { resource: inner } = await createGroup(context, "Inner", { members: [a] });
      const { resource: outer } = await createGroup(context, "Outer", { members: [inner.id, a] });
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "Group", id: inner.id })).toBe(true);
      const read = await mustGet(context, "Group", outer.id, { members: true });
      expect(read.members).toEqual([{ value: a, type: "User" }]);
      expect(read.version).not.toBe(outer.version);
    }),

    conformanceTest("any resource type created with members has a member list, not only one named Group", async (context) => {
      context.requireCapability("groups");
      // A host may register its own type with members (ResourceTypeDefinition.hasMembers); the
      // store learns it from CreateRequest.members alone, never from the type's name.
      const [a = "", b = ""] = await users(context, 2);
      const create = (id: string, members: readonly string[]) =>
        context.store.create({
          orgId: context.orgId,
          resourceType: "Team",
          id,
          now: context.now(),
          attributes: {},
          uniqueKeys: [],
          members,
          unknownMembers: "ignore",
        });
      const team = newId();
      const empty = newId();
      expect((await create(team, [a])).membership?.added).toEqual([a]);
      await create(empty, []);
      const read = (id: string) => context.store.get({ orgId: context.orgId, resourceType: "Team", id, members: true });
      expect((await read(empty))?.members).toEqual([]);
      const updated = await context.store.update({
        orgId: context.orgId,
        resourceType: "Team",
        id: team,
        now: context.now(),
        membership: delta([b]),
        unknownMembers: "ignore",
        members: true,
      });
      expect(updated?.resource.members).toEqual([
        { value: a, type: "User" },
        { value: b, type: "User" },
      ]);
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "User", id: a })).toBe(true);
      expect((await read(team))?.members).toEqual([{ value: b, type: "User" }]);
    }),

    conformanceTest("a user read with members: true carries no members", async (context) => {
      const [a = ""] = await users(context, 1);
      const read = await mustGet(context, "User", a, { members: true });
      expect(read.members).toBeUndefined();
      const listed = await listResources(context, "User", { members: true });
      expect(listed.resources[0]?.members).toBeUndefined();
    }),
  ],
};
