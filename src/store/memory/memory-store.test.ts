import { describe, expect, it } from "vitest";
import { ScimError, ScimType } from "../../errors.js";
import type { ResourceStore, StoredResource } from "../resource-store.js";
import { uniqueKeysOf } from "../unique-keys.js";
import { memoryStore } from "./memory-store.js";
import { T0, T1, T2, addGroup, addUser, filterOf, groups, listAll, memberIds, pathOf, rejectionOf, users } from "./memory-store.fixture.js";

const A = "org-a";
const B = "org-b";

function expectScimError(error: unknown, status: number, scimType: string | undefined): ScimError {
  expect(error).toBeInstanceOf(ScimError);
  const scimError = error as ScimError;
  expect(scimError.status).toBe(status);
  expect(scimError.scimType).toBe(scimType);
  return scimError;
}

async function getUser(store: ResourceStore, orgId: string, id: string): Promise<StoredResource | undefined> {
  return store.get({ orgId, resourceType: "User", id, members: false });
}

function renameUser(store: ResourceStore, orgId: string, id: string, userName: string, now = T1, expectedVersion?: string) {
  const attributes = { userName };
  return store.update({
    orgId,
    resourceType: "User",
    id,
    now,
    attributes,
    uniqueKeys: uniqueKeysOf(users, attributes),
    unknownMembers: "ignore",
    members: false,
    ...(expectedVersion === undefined ? {} : { expectedVersion }),
  });
}

function addMembersTo(store: ResourceStore, orgId: string, groupId: string, add: readonly string[], remove: readonly string[] = []) {
  return store.update({
    orgId,
    resourceType: "Group",
    id: groupId,
    now: T1,
    membership: { kind: "delta", add, remove },
    unknownMembers: "ignore",
    members: false,
  });
}

describe("memoryStore: capabilities", () => {
  it("declares sort and cursor paging", () => {
    expect(memoryStore().capabilities).toEqual({ sort: true, cursor: true });
  });
});

describe("memoryStore: tenant isolation", () => {
  it("keeps the same id and the same userName apart in two organizations", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice", { displayName: "Alice of A" });
    await addUser(store, B, "u1", "ALICE", { displayName: "Alice of B" });

    expect((await getUser(store, A, "u1"))?.attributes.displayName).toBe("Alice of A");
    expect((await getUser(store, B, "u1"))?.attributes.displayName).toBe("Alice of B");
    const inB = await listAll(store, B, "User", { filter: filterOf(users, 'userName eq "alice"') });
    expect(inB.resources.map((user) => user.attributes.displayName)).toEqual(["Alice of B"]);
  });

  it("never lets organization B read, list, update or delete organization A's resources", async () => {
    const store = memoryStore();
    const created = await addUser(store, A, "u1", "alice", { externalId: "ext-1" });

    expect(await getUser(store, B, "u1")).toBeUndefined();
    expect(await listAll(store, B, "User")).toEqual({ totalResults: 0, resources: [] });
    for (const filter of ['id eq "u1"', 'userName eq "alice"', 'externalId eq "ext-1"', "userName pr"]) {
      expect((await listAll(store, B, "User", { filter: filterOf(users, filter) })).totalResults).toBe(0);
    }
    expect(await renameUser(store, B, "u1", "mallory")).toBeUndefined();
    expect(await store.delete({ orgId: B, resourceType: "User", id: "u1" })).toBe(false);

    expect(await getUser(store, A, "u1")).toEqual(created.resource);
  });

  it("treats a member id of another organization as unknown", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    const group = await addGroup(store, B, "g1", "staff", ["u1"]);
    expect(group.membership).toEqual({ added: [], removed: [], ignored: ["u1"] });
    expect(group.resource.members).toEqual([]);
  });

  it("removes a deleted user only from the groups of its own organization", async () => {
    const store = memoryStore();
    for (const org of [A, B]) {
      await addUser(store, org, "u1", "alice");
      await addGroup(store, org, "g1", "staff", ["u1"]);
    }
    const groupInB = await store.get({ orgId: B, resourceType: "Group", id: "g1", members: true });
    await store.delete({ orgId: A, resourceType: "User", id: "u1" });

    expect(await memberIds(store, A, "g1")).toEqual([]);
    expect(await store.get({ orgId: B, resourceType: "Group", id: "g1", members: true })).toEqual(groupInB);
  });
});

describe("memoryStore: uniqueness", () => {
  it("refuses a create whose userName another user holds, case-insensitively, and writes nothing", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    const error = expectScimError(await rejectionOf(addUser(store, A, "u2", "Alice")), 409, ScimType.uniqueness);

    expect(error.detail).toContain("userName");
    expect(error.detail).not.toContain("u1");
    expect(error.detail).not.toContain(A);
    expect(await getUser(store, A, "u2")).toBeUndefined();
    expect((await listAll(store, A, "User")).totalResults).toBe(1);
    // The refused id was never taken, so it can still be used.
    await expect(addUser(store, A, "u2", "bob")).resolves.toBeDefined();
  });

  it("refuses a group with a taken displayName without adding its members anywhere", async () => {
    const store = memoryStore({ now: () => T2 });
    await addUser(store, A, "u1", "alice");
    await addGroup(store, A, "g1", "Staff");
    expectScimError(await rejectionOf(addGroup(store, A, "g2", "STAFF", ["u1"])), 409, ScimType.uniqueness);

    expect(await store.get({ orgId: A, resourceType: "Group", id: "g2", members: true })).toBeUndefined();
    const before = await store.get({ orgId: A, resourceType: "Group", id: "g1", members: true });
    // Had the refused create linked u1, deleting u1 would now touch a phantom group; g1 must be all there is.
    await store.delete({ orgId: A, resourceType: "User", id: "u1" });
    expect(await store.get({ orgId: A, resourceType: "Group", id: "g1", members: true })).toEqual(before);
  });

  it("refuses an update to a taken value and writes neither attributes nor members", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    await addGroup(store, A, "g1", "staff");
    const other = await addGroup(store, A, "g2", "admins");
    const error = await rejectionOf(
      store.update({
        orgId: A,
        resourceType: "Group",
        id: "g2",
        now: T1,
        attributes: { displayName: "Staff" },
        uniqueKeys: [{ attribute: "displayName", value: "staff" }],
        membership: { kind: "delta", add: ["u1"], remove: [] },
        unknownMembers: "ignore",
        members: true,
      }),
    );
    expect(expectScimError(error, 409, ScimType.uniqueness).detail).toContain("displayName");
    expect(await store.get({ orgId: A, resourceType: "Group", id: "g2", members: true })).toEqual({ ...other.resource, members: [] });
  });

  it("lets a resource keep its own value, and releases the old value when it changes", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    await expect(renameUser(store, A, "u1", "ALICE")).resolves.toBeDefined();
    await renameUser(store, A, "u1", "alicia");

    await expect(addUser(store, A, "u2", "alice")).resolves.toBeDefined();
    expectScimError(await rejectionOf(addUser(store, A, "u3", "Alicia")), 409, ScimType.uniqueness);
  });

  it("holds values unique per resource type, not across types", async () => {
    const store = memoryStore();
    await addGroup(store, A, "g1", "shared");
    const device = await store.create({
      orgId: A,
      resourceType: "Device",
      id: "d1",
      now: T0,
      attributes: { displayName: "shared" },
      uniqueKeys: [{ attribute: "displayName", value: "shared" }],
      unknownMembers: "ignore",
    });
    expect(device.resource.id).toBe("d1");
  });

  it("releases a deleted resource's values", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    await store.delete({ orgId: A, resourceType: "User", id: "u1" });
    await expect(addUser(store, A, "u2", "alice")).resolves.toBeDefined();
  });
});

describe("memoryStore: versions", () => {
  it("gives every write a new version and records the request's time", async () => {
    const store = memoryStore();
    const created = (await addUser(store, A, "u1", "alice")).resource;
    expect(created).toMatchObject({ created: T0, lastModified: T0 });
    const other = (await addUser(store, B, "u1", "alice")).resource;
    const updated = (await renameUser(store, A, "u1", "alicia", T1))!.resource;

    expect(new Set([created.version, other.version, updated.version]).size).toBe(3);
    expect(updated).toMatchObject({ created: T0, lastModified: T1, attributes: { userName: "alicia" } });
    expect(await getUser(store, A, "u1")).toEqual(updated);
  });

  it("keeps version and lastModified when an update changes nothing", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    await addUser(store, A, "u2", "bob");
    const group = (await addGroup(store, A, "g1", "staff", ["u1"])).resource;
    const user = (await getUser(store, A, "u1"))!;

    const same = await store.update({
      orgId: A,
      resourceType: "User",
      id: "u1",
      now: T1,
      attributes: { userName: "alice" },
      uniqueKeys: [{ attribute: "userName", value: "alice" }],
      unknownMembers: "ignore",
      members: false,
    });
    expect(same?.resource).toEqual(user);
    const untouched = await store.update({ orgId: A, resourceType: "User", id: "u1", now: T1, unknownMembers: "ignore", members: false });
    expect(untouched?.resource).toEqual(user);

    // Adding a member it has, removing one it lacks, or replacing with the same list changes nothing.
    const noop = await addMembersTo(store, A, "g1", ["u1"], ["u2"]);
    expect(noop?.membership).toEqual({ added: [], removed: [], ignored: [] });
    const replaced = await store.update({
      orgId: A,
      resourceType: "Group",
      id: "g1",
      now: T2,
      attributes: { displayName: "staff" },
      uniqueKeys: [{ attribute: "displayName", value: "staff" }],
      membership: { kind: "replace", ids: ["u1"] },
      unknownMembers: "ignore",
      members: true,
    });
    expect(replaced?.resource).toEqual({ ...group, members: [{ value: "u1", type: "User" }] });
  });

  it("refuses an update with a stale expectedVersion (412) and writes nothing", async () => {
    const store = memoryStore();
    const first = (await addUser(store, A, "u1", "alice")).resource;
    const second = (await renameUser(store, A, "u1", "alicia"))!.resource;
    const error = await rejectionOf(renameUser(store, A, "u1", "mallory", T2, first.version));
    expectScimError(error, 412, undefined);
    expect(await getUser(store, A, "u1")).toEqual(second);
    // The name the refused write asked for is still free.
    await expect(addUser(store, A, "u2", "mallory")).resolves.toBeDefined();
  });

  it("refuses a membership change with a stale expectedVersion (412)", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    const group = (await addGroup(store, A, "g1", "staff")).resource;
    await addMembersTo(store, A, "g1", ["u1"]);
    const error = await rejectionOf(
      store.update({
        orgId: A,
        resourceType: "Group",
        id: "g1",
        now: T2,
        expectedVersion: group.version,
        membership: { kind: "delta", add: [], remove: ["u1"] },
        unknownMembers: "ignore",
        members: false,
      }),
    );
    expectScimError(error, 412, undefined);
    expect(await memberIds(store, A, "g1")).toEqual(["u1"]);
  });

  it("refuses a delete with a stale expectedVersion (412) and keeps the resource", async () => {
    const store = memoryStore();
    const first = (await addUser(store, A, "u1", "alice")).resource;
    await renameUser(store, A, "u1", "alicia");
    expectScimError(
      await rejectionOf(store.delete({ orgId: A, resourceType: "User", id: "u1", expectedVersion: first.version })),
      412,
      undefined,
    );
    expect(await getUser(store, A, "u1")).toBeDefined();
  });

  it("writes when expectedVersion matches", async () => {
    const store = memoryStore();
    const first = (await addUser(store, A, "u1", "alice")).resource;
    const updated = (await renameUser(store, A, "u1", "alicia", T1, first.version))!.resource;
    expect(updated.attributes.userName).toBe("alicia");
    expect(await store.delete({ orgId: A, resourceType: "User", id: "u1", expectedVersion: updated.version })).toBe(true);
  });
});

describe("memoryStore: membership", () => {
  it("stores members in the order added, typed by what each id is in the organization", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    await addUser(store, A, "u2", "bob");
    await addGroup(store, A, "g0", "inner");
    const group = await addGroup(store, A, "g1", "outer", ["u2", "g0", "u1"]);

    const expected = [
      { value: "u2", type: "User" },
      { value: "g0", type: "Group" },
      { value: "u1", type: "User" },
    ];
    expect(group.resource.members).toEqual(expected);
    expect(group.membership).toEqual({ added: ["u2", "g0", "u1"], removed: [], ignored: [] });
    expect((await store.get({ orgId: A, resourceType: "Group", id: "g1", members: true }))?.members).toEqual(expected);
  });

  it("drops and reports unknown ids under the ignore policy", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    const created = await addGroup(store, A, "g1", "staff", ["u1", "ghost"]);
    expect(created.membership).toEqual({ added: ["u1"], removed: [], ignored: ["ghost"] });
    const updated = await addMembersTo(store, A, "g1", ["nobody"]);
    expect(updated?.membership).toEqual({ added: [], removed: [], ignored: ["nobody"] });
    expect(await memberIds(store, A, "g1")).toEqual(["u1"]);
  });

  it("refuses unknown ids under the reject policy, naming them and writing nothing", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    const onCreate = await rejectionOf(addGroup(store, A, "g1", "staff", ["u1", "ghost-1", "ghost-2"], "reject"));
    const detail = expectScimError(onCreate, 400, ScimType.invalidValue).detail;
    expect(detail).toContain("ghost-1");
    expect(detail).toContain("ghost-2");
    expect(await store.get({ orgId: A, resourceType: "Group", id: "g1", members: true })).toBeUndefined();

    const group = (await addGroup(store, A, "g1", "staff", [], "reject")).resource;
    const onUpdate = await rejectionOf(
      store.update({
        orgId: A,
        resourceType: "Group",
        id: "g1",
        now: T1,
        attributes: { displayName: "renamed" },
        uniqueKeys: [{ attribute: "displayName", value: "renamed" }],
        membership: { kind: "delta", add: ["u1", "ghost-3"], remove: [] },
        unknownMembers: "reject",
        members: true,
      }),
    );
    expect(expectScimError(onUpdate, 400, ScimType.invalidValue).detail).toContain("ghost-3");
    expect(await store.get({ orgId: A, resourceType: "Group", id: "g1", members: true })).toEqual(group);
    // The refused rename did not take the new name either.
    await expect(addGroup(store, A, "g2", "renamed")).resolves.toBeDefined();
  });

  it("changes nothing when the attributes of an update cannot be copied", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    const group = (await addGroup(store, A, "g1", "staff", [])).resource;
    const failed = await rejectionOf(
      store.update({
        orgId: A,
        resourceType: "Group",
        id: "g1",
        now: T1,
        attributes: { displayName: "staff", notJson: () => undefined },
        uniqueKeys: [{ attribute: "displayName", value: "staff" }],
        membership: { kind: "delta", add: ["u1"], remove: [] },
        unknownMembers: "ignore",
        members: true,
      }),
    );
    expect(failed).toBeInstanceOf(Error);
    expect(await store.get({ orgId: A, resourceType: "Group", id: "g1", members: true })).toEqual(group);
  });

  it("lets a removal name an unknown id even under the reject policy", async () => {
    const store = memoryStore();
    await addGroup(store, A, "g1", "staff");
    const result = await store.update({
      orgId: A,
      resourceType: "Group",
      id: "g1",
      now: T1,
      membership: { kind: "delta", add: [], remove: ["ghost"] },
      unknownMembers: "reject",
      members: false,
    });
    expect(result?.membership).toEqual({ added: [], removed: [], ignored: [] });
  });

  it("reports only the real additions and removals of a delta, and bumps the version", async () => {
    const store = memoryStore();
    for (const id of ["u1", "u2", "u3"]) await addUser(store, A, id, id);
    const group = (await addGroup(store, A, "g1", "staff", ["u1", "u2"])).resource;
    const result = await addMembersTo(store, A, "g1", ["u2", "u3"], ["u1", "u9"]);

    expect(result?.membership).toEqual({ added: ["u3"], removed: ["u1"], ignored: [] });
    expect(result?.resource.version).not.toBe(group.version);
    expect(result?.resource.lastModified).toBe(T1);
    expect(await memberIds(store, A, "g1")).toEqual(["u2", "u3"]);
  });

  it("reports a replacement as old minus new and new minus old, and clears with an empty list", async () => {
    const store = memoryStore();
    for (const id of ["u1", "u2", "u3", "u4"]) await addUser(store, A, id, id);
    await addGroup(store, A, "g1", "staff", ["u1", "u2", "u3"]);
    const replace = (ids: readonly string[]) =>
      store.update({
        orgId: A,
        resourceType: "Group",
        id: "g1",
        now: T1,
        membership: { kind: "replace", ids },
        unknownMembers: "ignore",
        members: true,
      });

    const replaced = await replace(["u4", "u2", "ghost"]);
    expect(replaced?.membership).toEqual({ added: ["u4"], removed: ["u1", "u3"], ignored: ["ghost"] });
    // Members that stay keep their place; new ones come after them.
    expect(replaced?.resource.members?.map((member) => member.value)).toEqual(["u2", "u4"]);

    const cleared = await replace([]);
    expect(cleared?.membership).toEqual({ added: [], removed: ["u2", "u4"], ignored: [] });
    expect(cleared?.resource.members).toEqual([]);
  });

  it("returns members only when the request asks for them", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    await addGroup(store, A, "g1", "staff", ["u1"]);
    expect(await store.get({ orgId: A, resourceType: "Group", id: "g1", members: false })).not.toHaveProperty("members");
    const withoutMembers = await listAll(store, A, "Group", { members: false });
    expect(withoutMembers.resources[0]).not.toHaveProperty("members");
    expect((await addMembersTo(store, A, "g1", []))?.resource).not.toHaveProperty("members");
  });

  it("gives a Group members when asked even before its first member, a user none", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    // Created with `members: []`, as the core creates every resource of a type with members.
    expect((await addGroup(store, A, "g1", "empty")).resource.members).toEqual([]);
    expect((await store.get({ orgId: A, resourceType: "Group", id: "g1", members: true }))?.members).toEqual([]);
    expect((await listAll(store, A, "Group")).resources[0]?.members).toEqual([]);
    expect(await store.get({ orgId: A, resourceType: "User", id: "u1", members: true })).not.toHaveProperty("members");
    expect((await listAll(store, A, "User")).resources[0]).not.toHaveProperty("members");
  });

  it("gives a member list to any resource created with members, [] included, and none to one created without", async () => {
    const store = memoryStore();
    const create = (resourceType: string, id: string, members?: readonly string[]) =>
      store.create({
        orgId: A,
        resourceType,
        id,
        now: T0,
        attributes: {},
        uniqueKeys: [],
        unknownMembers: "ignore",
        ...(members ? { members } : {}),
      });
    await addUser(store, A, "u1", "alice");
    await create("Team", "t1", []);
    await create("Squad", "s1", ["u1"]);
    await create("Squad", "s2");

    const membersOf = async (resourceType: string, id: string) => (await store.get({ orgId: A, resourceType, id, members: true }))?.members;
    expect(await membersOf("Team", "t1")).toEqual([]);
    expect(await membersOf("Squad", "s1")).toEqual([{ value: "u1", type: "User" }]);
    expect(await membersOf("Squad", "s2")).toBeUndefined();
  });

  it("adds to and removes from a large group without walking its other members", async () => {
    const size = 10_000;
    const store = memoryStore();
    const ids = Array.from({ length: size + 1 }, (_, index) => `u${index}`);
    for (const id of ids) await addUser(store, A, id, id);
    await addGroup(store, A, "g1", "everyone", ids.slice(0, size));

    // Record the size of every Set iterated during the deltas: none may be the group's.
    const iterated: number[] = [];
    const prototype = Set.prototype as unknown as Record<PropertyKey, (this: Set<unknown>, ...args: unknown[]) => unknown>;
    const patched = [Symbol.iterator, "values", "keys", "entries", "forEach"] as const;
    const originals = patched.map((name) => prototype[name]!);
    patched.forEach((name, index) => {
      const original = originals[index]!;
      prototype[name] = function (this: Set<unknown>, ...args: unknown[]) {
        iterated.push(this.size);
        return original.apply(this, args);
      };
    });
    let added: Awaited<ReturnType<typeof addMembersTo>> | undefined;
    let removed: Awaited<ReturnType<typeof addMembersTo>> | undefined;
    try {
      added = await addMembersTo(store, A, "g1", [`u${size}`]);
      removed = await addMembersTo(store, A, "g1", [], ["u5"]);
    } finally {
      patched.forEach((name, index) => {
        prototype[name] = originals[index]!;
      });
    }

    expect(Math.max(0, ...iterated)).toBeLessThan(size);
    expect(added?.membership).toEqual({ added: [`u${size}`], removed: [], ignored: [] });
    expect(removed?.membership).toEqual({ added: [], removed: ["u5"], ignored: [] });
    const members = (await memberIds(store, A, "g1"))!;
    expect(members).toHaveLength(size);
    expect(members.at(-1)).toBe(`u${size}`);
    expect(members).not.toContain("u5");
  });

  it("applies 50 concurrent deltas to one group, losing none", async () => {
    const store = memoryStore();
    const ids = Array.from({ length: 50 }, (_, index) => `u${index}`);
    for (const id of ids) await addUser(store, A, id, id);
    const group = (await addGroup(store, A, "g1", "staff")).resource;

    const results = await Promise.all(ids.map((id) => addMembersTo(store, A, "g1", [id])));
    expect(results.every((result) => result?.membership?.added.length === 1)).toBe(true);
    expect(new Set(results.map((result) => result?.resource.version)).size).toBe(50);
    expect(new Set(await memberIds(store, A, "g1"))).toEqual(new Set(ids));
    expect((await store.get({ orgId: A, resourceType: "Group", id: "g1", members: false }))?.version).not.toBe(group.version);
  });
});

describe("memoryStore: delete", () => {
  it("takes a deleted user out of every group that lists it, bumping those groups with the store's clock", async () => {
    const store = memoryStore({ now: () => T2 });
    await addUser(store, A, "u1", "alice");
    await addUser(store, A, "u2", "bob");
    const listing = (await addGroup(store, A, "g1", "one", ["u1", "u2"])).resource;
    await addGroup(store, A, "g2", "two", ["u1"]);
    const unrelated = (await addGroup(store, A, "g3", "three", ["u2"])).resource;

    expect(await store.delete({ orgId: A, resourceType: "User", id: "u1" })).toBe(true);
    const one = await store.get({ orgId: A, resourceType: "Group", id: "g1", members: true });
    expect(one?.members).toEqual([{ value: "u2", type: "User" }]);
    expect(one?.version).not.toBe(listing.version);
    expect(one?.lastModified).toBe(T2);
    expect(await memberIds(store, A, "g2")).toEqual([]);
    expect(await store.get({ orgId: A, resourceType: "Group", id: "g3", members: true })).toEqual(unrelated);
  });

  it("forgets a deleted resource in every index and as a member id", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice", { externalId: "ext-1" });
    await addGroup(store, A, "g1", "staff");
    await store.delete({ orgId: A, resourceType: "User", id: "u1" });

    expect(await getUser(store, A, "u1")).toBeUndefined();
    for (const filter of ['id eq "u1"', 'externalId eq "ext-1"', 'userName eq "alice"']) {
      expect((await listAll(store, A, "User", { filter: filterOf(users, filter) })).totalResults).toBe(0);
    }
    expect((await addMembersTo(store, A, "g1", ["u1"]))?.membership?.ignored).toEqual(["u1"]);
    expect(await store.delete({ orgId: A, resourceType: "User", id: "u1" })).toBe(false);
  });

  it("takes a deleted group out of the groups that nest it, and releases its own members", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    await addGroup(store, A, "inner", "inner", ["u1"]);
    await addGroup(store, A, "outer", "outer", ["inner", "u1"]);
    await store.update({
      orgId: A,
      resourceType: "Group",
      id: "inner",
      now: T1,
      membership: { kind: "delta", add: ["inner"], remove: [] },
      unknownMembers: "ignore",
      members: false,
    });

    expect(await store.delete({ orgId: A, resourceType: "Group", id: "inner" })).toBe(true);
    expect(await memberIds(store, A, "outer")).toEqual(["u1"]);
    await store.delete({ orgId: A, resourceType: "User", id: "u1" });
    expect(await memberIds(store, A, "outer")).toEqual([]);
  });
});

describe("memoryStore: deleteOrganization", () => {
  it("removes every resource of the organization, its indexes and memberships, and counts them", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice", { externalId: "ext-1" });
    await addUser(store, A, "u2", "bob");
    await addGroup(store, A, "g1", "staff", ["u1", "u2"]);
    await addUser(store, B, "u1", "alice");
    const kept = (await addGroup(store, B, "g1", "staff", ["u1"])).resource;

    expect(await store.deleteOrganization?.(A)).toBe(3);
    expect(await getUser(store, A, "u1")).toBeUndefined();
    expect((await listAll(store, A, "User")).totalResults).toBe(0);
    expect((await listAll(store, A, "Group")).totalResults).toBe(0);
    expect((await listAll(store, A, "User", { filter: filterOf(users, 'externalId eq "ext-1"') })).totalResults).toBe(0);
    // The unique values are released: the same userName can be provisioned again.
    expect((await addUser(store, A, "u3", "alice")).resource.id).toBe("u3");
    expect(await store.get({ orgId: B, resourceType: "Group", id: "g1", members: true })).toEqual(kept);
    expect((await getUser(store, B, "u1"))?.attributes).toEqual({ userName: "alice" });
  });

  it("counts 0 for an organization without resources", async () => {
    const store = memoryStore();
    await addUser(store, B, "u1", "alice");
    expect(await store.deleteOrganization?.(A)).toBe(0);
    expect((await listAll(store, B, "User")).totalResults).toBe(1);
  });
});

describe("memoryStore: list", () => {
  async function people(): Promise<ResourceStore> {
    const store = memoryStore();
    // Inserted out of id order, so that id order has to come from sorting.
    await addUser(store, A, "u3", "carol", { title: "Engineer" });
    await addUser(store, A, "u1", "alice", { title: "engineer", externalId: "shared" });
    await addUser(store, A, "u5", "eve");
    await addUser(store, A, "u2", "bob", { title: "Manager", externalId: "shared" });
    await addUser(store, A, "u4", "dave", { title: "Director" });
    return store;
  }
  const ids = (resources: readonly StoredResource[]) => resources.map((resource) => resource.id);

  it("orders by id without a sort and pages by startIndex and count, with the total of all matches", async () => {
    const store = await people();
    const page = await store.list({ orgId: A, resourceType: "User", page: { kind: "index", startIndex: 2, count: 2 }, members: false });
    expect(page.totalResults).toBe(5);
    expect(ids(page.resources)).toEqual(["u2", "u3"]);
    const past = await store.list({ orgId: A, resourceType: "User", page: { kind: "index", startIndex: 9, count: 2 }, members: false });
    expect(past).toEqual({ totalResults: 5, resources: [] });
  });

  it("answers count 0 with the total alone", async () => {
    const store = await people();
    const result = await store.list({
      orgId: A,
      resourceType: "User",
      filter: filterOf(users, "title pr"),
      page: { kind: "index", startIndex: 1, count: 0 },
      members: false,
    });
    expect(result).toEqual({ totalResults: 4, resources: [] });
  });

  it("sorts both ways, case-insensitively, missing values last when ascending, ties by id", async () => {
    const store = await people();
    const path = pathOf(users, "title");
    const ascending = await listAll(store, A, "User", { sort: { path, order: "ascending" } });
    expect(ids(ascending.resources)).toEqual(["u4", "u1", "u3", "u2", "u5"]);
    const descending = await listAll(store, A, "User", { sort: { path, order: "descending" } });
    expect(ids(descending.resources)).toEqual(["u5", "u2", "u1", "u3", "u4"]);
  });

  it("walks every match exactly once with cursor pages, in both orders", async () => {
    const store = await people();
    for (const order of ["ascending", "descending"] as const) {
      const sort = { path: pathOf(users, "title"), order };
      const full = ids((await listAll(store, A, "User", { sort })).resources);
      const seen: string[] = [];
      let after: { key: string | null; id: string } | undefined;
      for (;;) {
        const page = await store.list({
          orgId: A,
          resourceType: "User",
          sort,
          page: { kind: "cursor", count: 2, ...(after ? { after } : {}) },
          members: false,
        });
        expect(page.totalResults).toBe(5);
        if (page.resources.length === 0) break;
        seen.push(...ids(page.resources));
        const last = page.resources.at(-1)!;
        const title = last.attributes.title;
        after = { key: typeof title === "string" ? title.toLowerCase() : null, id: last.id };
      }
      expect(seen).toEqual(full);
    }
  });

  it("answers equality filters on id, externalId and userName, alone, in and, and in or", async () => {
    const store = await people();
    const matching = async (text: string) => ids((await listAll(store, A, "User", { filter: filterOf(users, text) })).resources);
    expect(await matching('id eq "u3"')).toEqual(["u3"]);
    expect(await matching('id eq "U3"')).toEqual([]);
    expect(await matching('externalId eq "shared"')).toEqual(["u1", "u2"]);
    expect(await matching('userName eq "ALICE"')).toEqual(["u1"]);
    expect(await matching('userName eq "alice" and title eq "manager"')).toEqual([]);
    expect(await matching('externalId eq "shared" and title eq "manager"')).toEqual(["u2"]);
    expect(await matching('userName eq "eve" or id eq "u4"')).toEqual(["u4", "u5"]);
    expect(await matching('title sw "eng"')).toEqual(["u1", "u3"]);
  });

  it("filters groups on their members", async () => {
    const store = memoryStore();
    await addUser(store, A, "u1", "alice");
    await addUser(store, A, "u2", "bob");
    await addGroup(store, A, "g1", "one", ["u1"]);
    await addGroup(store, A, "g2", "two", ["u1", "u2"]);
    await addGroup(store, A, "g3", "three");
    const matching = async (text: string) =>
      ids((await listAll(store, A, "Group", { filter: filterOf(groups, text), members: false })).resources);

    expect(await matching('members.value eq "u2"')).toEqual(["g2"]);
    expect(await matching('members[value eq "u1"]')).toEqual(["g1", "g2"]);
    expect(await matching('id eq "g1" and members.value eq "u2"')).toEqual([]);
    expect(await matching("not (members pr)")).toEqual(["g3"]);
  });

  it("lists nothing for an organization or resource type it has never seen", async () => {
    const store = await people();
    expect(await listAll(store, "nowhere", "User")).toEqual({ totalResults: 0, resources: [] });
    expect(await listAll(store, A, "Group")).toEqual({ totalResults: 0, resources: [] });
  });
});

describe("memoryStore: copies", () => {
  it("keeps its own copy of what a request gave it", async () => {
    const store = memoryStore();
    const attributes = { userName: "alice", emails: [{ value: "a@example.com" }] };
    const members = ["u1"];
    await store.create({
      orgId: A,
      resourceType: "User",
      id: "u1",
      now: T0,
      attributes,
      uniqueKeys: uniqueKeysOf(users, attributes),
      unknownMembers: "ignore",
    });
    await addGroup(store, A, "g1", "staff", members);
    attributes.emails[0]!.value = "mallory@example.com";
    attributes.userName = "mallory";
    members.push("u2");

    expect((await getUser(store, A, "u1"))?.attributes).toEqual({ userName: "alice", emails: [{ value: "a@example.com" }] });
    expect(await memberIds(store, A, "g1")).toEqual(["u1"]);
  });

  it("returns copies the caller may change without changing the store", async () => {
    const store = memoryStore();
    const created = await addUser(store, A, "u1", "alice", { name: { givenName: "Alice" } });
    const group = await addGroup(store, A, "g1", "staff", ["u1"]);
    const read = (await getUser(store, A, "u1"))!;
    const listed = (await listAll(store, A, "User")).resources[0]!;
    for (const resource of [created.resource, read, listed]) {
      (resource.attributes.name as Record<string, unknown>).givenName = "Mallory";
      resource.attributes.userName = "mallory";
    }
    (group.resource.members as unknown as unknown[]).push({ value: "x", type: "User" });

    expect((await getUser(store, A, "u1"))?.attributes).toEqual({ userName: "alice", name: { givenName: "Alice" } });
    expect(await memberIds(store, A, "g1")).toEqual(["u1"]);
  });
});

describe("memoryStore: long scans", () => {
  it("gives the event loop turns during a scan, and still answers exactly, with writes in between", async () => {
    const store = memoryStore();
    for (let index = 0; index < 10_000; index++) {
      await addUser(store, A, `u${String(index).padStart(5, "0")}`, `user${index}`, { title: index % 2 === 0 ? "even" : "odd" });
    }
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const listing = listAll(store, A, "User", { filter: filterOf(users, 'title eq "even"'), members: false });
    // A write that lands while the scan runs: it never tears a record the scan reads.
    const renaming = renameUser(store, A, "u00002", "renamed");
    const { totalResults, resources } = await listing;
    ticking = false;
    await renaming;
    expect(turns).toBeGreaterThan(2);
    expect(totalResults).toBe(5_000);
    expect(resources.map((resource) => resource.id)).toEqual(
      Array.from({ length: 5_000 }, (_, index) => `u${String(index * 2).padStart(5, "0")}`),
    );
    expect(resources.every((resource) => resource.attributes["title"] === "even")).toBe(true);
  });
});

describe("memoryStore: lists longer than one sorted run", () => {
  // 10,000 users span three runs of `sortedPrefix`, so every page below comes out of a merge.
  const COUNT = 10_000;
  const idOf = (index: number): string => `u${String((index * 7919) % COUNT).padStart(5, "0")}`;
  const titleOf = (index: number): string | undefined => (index % 10 === 0 ? undefined : `t${index % 37}`);

  async function seeded(): Promise<ResourceStore> {
    const store = memoryStore();
    for (let index = 0; index < COUNT; index++) {
      const title = titleOf(index);
      await addUser(store, A, idOf(index), `user${index}`, title === undefined ? {} : { title });
    }
    return store;
  }

  /** The ids in list order by title (missing titles last when ascending), ties by id. */
  function expectedOrder(order: "ascending" | "descending"): string[] {
    const entries = Array.from({ length: COUNT }, (_, index) => ({ id: idOf(index), key: titleOf(index) ?? null }));
    entries.sort((a, b) => {
      const byKey = a.key === b.key ? 0 : a.key === null ? 1 : b.key === null ? -1 : a.key < b.key ? -1 : 1;
      if (byKey !== 0) return order === "descending" ? -byKey : byKey;
      return a.id < b.id ? -1 : 1;
    });
    return entries.map((entry) => entry.id);
  }

  it.each(["ascending", "descending"] as const)("gives index pages and cursor walks in the one list order (%s)", async (order) => {
    const store = await seeded();
    const sort = { path: pathOf(users, "title"), order };
    const expected = expectedOrder(order);
    const ids = (page: { readonly resources: readonly StoredResource[] }): string[] => page.resources.map((resource) => resource.id);

    const deep = await store.list({
      orgId: A,
      resourceType: "User",
      sort,
      page: { kind: "index", startIndex: 7001, count: 50 },
      members: false,
    });
    expect(deep.totalResults).toBe(COUNT);
    expect(ids(deep)).toEqual(expected.slice(7000, 7050));

    const walked: string[] = [];
    let after: { key: string | null; id: string } | undefined;
    for (;;) {
      const page = await store.list({
        orgId: A,
        resourceType: "User",
        sort,
        page: { kind: "cursor", ...(after ? { after } : {}), count: 3000 },
        members: false,
      });
      expect(page.totalResults).toBe(COUNT);
      walked.push(...ids(page));
      const last = page.resources[page.resources.length - 1];
      if (page.resources.length < 3000 || !last) break;
      const title = last.attributes["title"];
      after = { key: typeof title === "string" ? title : null, id: last.id };
    }
    expect(walked).toEqual(expected);
  });

  it("counts every match of a filtered scan and pages it in id order", async () => {
    const store = await seeded();
    const filter = filterOf(users, "title pr");
    const withTitle = Array.from({ length: COUNT }, (_, index) => index)
      .filter((index) => titleOf(index) !== undefined)
      .map(idOf)
      .sort();
    const page = await store.list({
      orgId: A,
      resourceType: "User",
      filter,
      page: { kind: "index", startIndex: 8001, count: 10 },
      members: false,
    });
    expect(page.totalResults).toBe(withTitle.length);
    expect(page.resources.map((resource) => resource.id)).toEqual(withTitle.slice(8000, 8010));
    const totalsOnly = await store.list({
      orgId: A,
      resourceType: "User",
      filter,
      page: { kind: "index", startIndex: 1, count: 0 },
      members: false,
    });
    expect(totalsOnly).toEqual({ totalResults: withTitle.length, resources: [] });
  });
});
