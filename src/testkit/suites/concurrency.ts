/**
 * Concurrent writes (architecture §3): membership deltas lose nothing, uniqueness and expected versions
 * hold under races, and a member deleted while being added is never left dangling. The calls are
 * issued together with `Promise.all`, as concurrent requests reach a store.
 */
import { expect } from "vitest";
import { ScimType, isScimError } from "../../errors.js";
import { conformanceTest, type ConformanceSuite } from "../conformance-test.js";
import {
  countResources,
  createGroup,
  createResource,
  createUser,
  getResource,
  listResources,
  memberIds,
  mustGet,
  uniqueKeys,
  userAttributes,
} from "./helpers.js";

/** Splits settled results into values and ScimErrors; anything else thrown fails the test. */
function partition<T>(settled: readonly PromiseSettledResult<T>[]): {
  readonly values: T[];
  readonly errors: { status: number; scimType: string | undefined }[];
} {
  const values: T[] = [];
  const errors: { status: number; scimType: string | undefined }[] = [];
  for (const outcome of settled) {
    if (outcome.status === "fulfilled") {
      values.push(outcome.value);
      continue;
    }
    expect(isScimError(outcome.reason), `a concurrent write failed with ${String(outcome.reason)}`).toBe(true);
    if (isScimError(outcome.reason)) errors.push({ status: outcome.reason.status, scimType: outcome.reason.scimType });
  }
  return { values, errors };
}

export const concurrencySuite: ConformanceSuite = {
  title: "concurrency",
  tests: [
    conformanceTest("concurrent membership deltas to one group all take effect", async (context) => {
      const ids: string[] = [];
      for (let index = 0; index < 50; index++) ids.push((await createUser(context, `member${index}@acme.test`)).id);
      const { resource: group } = await createGroup(context, "Everyone");
      const results = await Promise.all(
        ids.map((id) =>
          context.store.update({
            orgId: context.orgId,
            resourceType: "Group",
            id: group.id,
            now: context.now(),
            membership: { kind: "delta", add: [id], remove: [] },
            unknownMembers: "ignore",
            members: false,
          }),
        ),
      );
      expect(results.map((result) => result?.membership?.added)).toEqual(ids.map((id) => [id]));
      const read = await mustGet(context, "Group", group.id, { members: true });
      expect([...memberIds(read)].sort()).toEqual([...ids].sort());
      expect(read.version).not.toBe(group.version);
    }),

    conformanceTest("concurrent creates of one userName: exactly one succeeds, the others fail with 409", async (context) => {
      const spellings = Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? "alice@acme.test" : "ALICE@acme.test"));
      const settled = await Promise.allSettled(spellings.map((userName) => createResource(context, "User", userAttributes(userName))));
      const { values, errors } = partition(settled);
      expect(values).toHaveLength(1);
      expect(errors).toEqual(Array.from({ length: 9 }, () => ({ status: 409, scimType: ScimType.uniqueness })));
      expect(await countResources(context, "User")).toBe(1);
    }),

    conformanceTest("concurrent updates with the same expectedVersion: exactly one succeeds, the others fail with 412", async (context) => {
      const alice = await createUser(context, "alice@acme.test");
      const nickNames = Array.from({ length: 10 }, (_, index) => `nick${index}`);
      const settled = await Promise.allSettled(
        nickNames.map((nickName) => {
          const attributes = userAttributes("alice@acme.test", { nickName });
          return context.store.update({
            orgId: context.orgId,
            resourceType: "User",
            id: alice.id,
            now: context.now(),
            expectedVersion: alice.version,
            attributes,
            uniqueKeys: uniqueKeys("User", attributes),
            unknownMembers: "ignore",
            members: false,
          });
        }),
      );
      const { values, errors } = partition(settled);
      expect(values).toHaveLength(1);
      expect(errors).toEqual(Array.from({ length: 9 }, () => ({ status: 412, scimType: undefined })));
      const winner = values[0]?.resource;
      const read = await mustGet(context, "User", alice.id);
      expect(read.attributes).toEqual(winner?.attributes);
      expect(read.version).toBe(winner?.version);
    }),

    conformanceTest("a user deleted while being added to a group is not left as a member", async (context) => {
      const ids: string[] = [];
      for (let index = 0; index < 10; index++) ids.push((await createUser(context, `member${index}@acme.test`)).id);
      const { resource: group } = await createGroup(context, "Everyone");
      await Promise.all(
        ids.flatMap((id) => [
          context.store.update({
            orgId: context.orgId,
            resourceType: "Group",
            id: group.id,
            now: context.now(),
            membership: { kind: "delta", add: [id], remove: [] },
            unknownMembers: "ignore",
            members: false,
          }),
          context.store.delete({ orgId: context.orgId, resourceType: "User", id }),
        ]),
      );
      for (const id of ids) expect(await getResource(context, "User", id)).toBeUndefined();
      expect(memberIds(await mustGet(context, "Group", group.id, { members: true }))).toEqual([]);
      expect((await listResources(context, "Group", { filter: "members pr" })).totalResults).toBe(0);
    }),
  ],
};
