/**
 * Tenant isolation (architecture §3): every call is scoped to one organization and one resource type,
 * and nothing — ids, lists, filters, members, counts — crosses either.
 */
import { expect } from "vitest";
import { ScimType } from "../../errors.js";
import { conformanceTest, type ConformanceSuite } from "../conformance-test.js";
import {
  byId,
  countResources,
  createGroup,
  createUser,
  expectScimError,
  getResource,
  idsOf,
  listResources,
  memberIds,
  mustGet,
  uniqueKeys,
  userAttributes,
} from "./helpers.js";

export const tenantIsolationSuite: ConformanceSuite = {
  title: "tenant isolation",
  tests: [
    conformanceTest("get, update and delete never reach a resource of another organization", async (context) => {
      const alice = await createUser(context, "alice@acme.test", { nickName: "Al" });
      const other = context.otherOrgId;
      expect(await getResource(context, "User", alice.id, { orgId: other })).toBeUndefined();
      const attributes = userAttributes("mallory@acme.test");
      const update = await context.store.update({
        orgId: other,
        resourceType: "User",
        id: alice.id,
        now: context.now(),
        attributes,
        uniqueKeys: uniqueKeys("User", attributes),
        unknownMembers: "ignore",
        members: false,
      });
      expect(update).toBeUndefined();
      expect(await context.store.delete({ orgId: other, resourceType: "User", id: alice.id })).toBe(false);
      const read = await mustGet(context, "User", alice.id);
      expect(read.attributes).toEqual(alice.attributes);
      expect(read.version).toBe(alice.version);
      expect(await countResources(context, "User", other)).toBe(0);
    }),

    conformanceTest("lists and filters never return another organization's resources", async (context) => {
      const mine = await createUser(context, "alice@acme.test", { externalId: "e1" });
      const theirs = await createUser(context, "alice@acme.test", { externalId: "e1" }, { orgId: context.otherOrgId });
      const theirOther = await createUser(context, "bob@acme.test", {}, { orgId: context.otherOrgId });
      for (const filter of [undefined, 'userName eq "alice@acme.test"', 'externalId eq "e1"', `id eq "${theirs.id}"`, "userName pr"]) {
        const list = await listResources(context, "User", filter === undefined ? {} : { filter });
        const expected = filter === `id eq "${theirs.id}"` ? [] : [mine.id];
        expect(idsOf(list.resources), `filter ${filter ?? "(none)"}`).toEqual(expected);
        expect(list.totalResults, `filter ${filter ?? "(none)"}`).toBe(expected.length);
      }
      const theirList = await listResources(context, "User", { orgId: context.otherOrgId });
      expect(idsOf(theirList.resources)).toEqual(byId([theirs.id, theirOther.id]));
    }),

    conformanceTest("resource types are separate: a user id is unknown as a group", async (context) => {
      const alice = await createUser(context, "alice@acme.test");
      const { resource: group } = await createGroup(context, "Engineers");
      expect(await getResource(context, "Group", alice.id)).toBeUndefined();
      expect(await getResource(context, "User", group.id)).toBeUndefined();
      expect(idsOf((await listResources(context, "Group")).resources)).toEqual([group.id]);
      expect(idsOf((await listResources(context, "User")).resources)).toEqual([alice.id]);
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "Group", id: alice.id })).toBe(false);
      expect(await getResource(context, "User", alice.id)).toBeDefined();
    }),

    conformanceTest("member ids from another organization are unknown: ignored or rejected", async (context) => {
      const stranger = await createUser(context, "stranger@acme.test", {}, { orgId: context.otherOrgId });
      const local = await createUser(context, "local@acme.test");
      const ignored = await createGroup(context, "Engineers", { members: [local.id, stranger.id], unknownMembers: "ignore" });
      expect(ignored.membership?.ignored).toEqual([stranger.id]);
      expect(ignored.membership?.added).toEqual([local.id]);
      expect(memberIds(await mustGet(context, "Group", ignored.resource.id, { members: true }))).toEqual([local.id]);
      await expectScimError(
        createGroup(context, "Sales", { members: [stranger.id], unknownMembers: "reject" }),
        400,
        ScimType.invalidValue,
      );
      expect(await countResources(context, "Group")).toBe(1);
      const delta = await context.store.update({
        orgId: context.orgId,
        resourceType: "Group",
        id: ignored.resource.id,
        now: context.now(),
        membership: { kind: "delta", add: [stranger.id], remove: [] },
        unknownMembers: "ignore",
        members: true,
      });
      expect(delta?.membership?.ignored).toEqual([stranger.id]);
      expect(delta?.membership?.added).toEqual([]);
      expect(delta?.resource.members?.map((member) => member.value)).toEqual([local.id]);
    }),

    conformanceTest("totals are counted per organization", async (context) => {
      for (const name of ["a", "b", "c"]) await createUser(context, `${name}@acme.test`);
      await createUser(context, "a@acme.test", {}, { orgId: context.otherOrgId });
      await createGroup(context, "Engineers", { orgId: context.otherOrgId });
      expect(await countResources(context, "User")).toBe(3);
      expect(await countResources(context, "User", context.otherOrgId)).toBe(1);
      expect(await countResources(context, "Group")).toBe(0);
      expect(await countResources(context, "Group", context.otherOrgId)).toBe(1);
      expect((await listResources(context, "User", { filter: 'userName sw "a"' })).totalResults).toBe(1);
    }),

    conformanceTest("the same id may exist in two organizations; deleting one leaves the other and its groups alone", async (context) => {
      // The same id in two organizations (CreateRequest.id is unused only within one) must stay apart.
      const alice = await createUser(context, "alice@acme.test");
      const twin = await createUser(context, "alice@acme.test", {}, { orgId: context.otherOrgId, id: alice.id });
      const { resource: theirGroup } = await createGroup(context, "Engineers", { orgId: context.otherOrgId, members: [twin.id] });
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "User", id: alice.id })).toBe(true);
      expect(await getResource(context, "User", twin.id, { orgId: context.otherOrgId })).toBeDefined();
      const group = await mustGet(context, "Group", theirGroup.id, { orgId: context.otherOrgId, members: true });
      expect(memberIds(group)).toEqual([twin.id]);
      expect(group.version).toBe(theirGroup.version);
    }),
  ],
};
