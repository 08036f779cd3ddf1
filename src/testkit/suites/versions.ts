/**
 * Optimistic concurrency (architecture §3, RFC 7644 §3.14): a write carrying a stale expected version
 * fails with 412 and writes nothing; the version changes when, and only when, something changed.
 */
import { expect } from "vitest";
import type { MembershipDelta } from "../../scim/patch/membership-delta.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { WriteResult } from "../../store/resource-store.js";
import { conformanceTest, type ConformanceContext, type ConformanceSuite } from "../conformance-test.js";
import {
  createGroup,
  createUser,
  expectScimError,
  getResource,
  memberIds,
  mustGet,
  newId,
  uniqueKeys,
  userAttributes,
  type ResourceTypeId,
} from "./helpers.js";

interface Write {
  readonly attributes?: ScimObject;
  readonly membership?: MembershipDelta;
  readonly expectedVersion?: string;
  readonly now?: string;
}

function update(context: ConformanceContext, type: ResourceTypeId, id: string, write: Write): Promise<WriteResult | undefined> {
  return context.store.update({
    orgId: context.orgId,
    resourceType: type,
    id,
    now: write.now ?? context.now(),
    ...(write.expectedVersion === undefined ? {} : { expectedVersion: write.expectedVersion }),
    ...(write.attributes ? { attributes: write.attributes, uniqueKeys: uniqueKeys(type, write.attributes) } : {}),
    ...(write.membership ? { membership: write.membership } : {}),
    unknownMembers: "ignore",
    members: type === "Group",
  });
}

export const versionSuite: ConformanceSuite = {
  title: "versions",
  tests: [
    conformanceTest("an update with a stale expectedVersion fails with 412 and changes nothing", async (context) => {
      const alice = await createUser(context, "alice@acme.test", { nickName: "Al" });
      const stale = alice.version;
      const current = await update(context, "User", alice.id, { attributes: userAttributes("alice@acme.test", { nickName: "Ally" }) });
      await expectScimError(
        update(context, "User", alice.id, { attributes: userAttributes("alice@acme.test", { nickName: "Lost" }), expectedVersion: stale }),
        412,
        null,
      );
      const read = await mustGet(context, "User", alice.id);
      expect(read.attributes["nickName"]).toBe("Ally");
      expect(read.version).toBe(current?.resource.version);
      expect(read.lastModified).toBe(current?.resource.lastModified);

      const member = (await createUser(context, "bob@acme.test")).id;
      const { resource: group } = await createGroup(context, "Engineers");
      await expectScimError(
        update(context, "Group", group.id, {
          membership: { kind: "delta", add: [member], remove: [] },
          expectedVersion: "not-the-version",
        }),
        412,
        null,
      );
      const readGroup = await mustGet(context, "Group", group.id, { members: true });
      expect(readGroup.members).toEqual([]);
      expect(readGroup.version).toBe(group.version);
    }),

    conformanceTest("a delete with a stale expectedVersion fails with 412 and deletes nothing", async (context) => {
      const alice = await createUser(context, "alice@acme.test");
      const { resource: group } = await createGroup(context, "Engineers", { members: [alice.id] });
      await update(context, "User", alice.id, { attributes: userAttributes("alice@acme.test", { nickName: "Al" }) });
      await expectScimError(
        context.store.delete({ orgId: context.orgId, resourceType: "User", id: alice.id, expectedVersion: alice.version }),
        412,
        null,
      );
      expect(await getResource(context, "User", alice.id)).toBeDefined();
      const readGroup = await mustGet(context, "Group", group.id, { members: true });
      expect(memberIds(readGroup)).toEqual([alice.id]);
      expect(readGroup.version).toBe(group.version);
    }),

    conformanceTest("update and delete with the current expectedVersion succeed", async (context) => {
      const alice = await createUser(context, "alice@acme.test");
      const updated = await update(context, "User", alice.id, {
        attributes: userAttributes("alice@acme.test", { nickName: "Al" }),
        expectedVersion: alice.version,
      });
      expect(updated?.resource.attributes["nickName"]).toBe("Al");
      const version = updated?.resource.version ?? "";
      expect(version).not.toBe(alice.version);
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "User", id: alice.id, expectedVersion: version })).toBe(true);
      expect(await getResource(context, "User", alice.id)).toBeUndefined();
    }),

    conformanceTest("update and delete of an unknown id with an expectedVersion give undefined and false, not 412", async (context) => {
      const alice = await createUser(context, "alice@acme.test");
      const missing = newId();
      expect(
        await update(context, "User", missing, { attributes: userAttributes("ghost@acme.test"), expectedVersion: alice.version }),
      ).toBeUndefined();
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "User", id: missing, expectedVersion: alice.version })).toBe(
        false,
      );
    }),

    conformanceTest("an update with identical attributes keeps the version and lastModified", async (context) => {
      const alice = await createUser(context, "alice@acme.test", {
        nickName: "Al",
        name: { givenName: "Alice" },
        emails: [{ value: "a@work.test", type: "work" }],
      });
      const result = await update(context, "User", alice.id, { attributes: structuredClone(alice.attributes) });
      expect(result?.resource.version).toBe(alice.version);
      expect(result?.resource.lastModified).toBe(alice.lastModified);
      const read = await mustGet(context, "User", alice.id);
      expect(read.version).toBe(alice.version);
      expect(read.lastModified).toBe(alice.lastModified);
    }),

    conformanceTest("an empty membership delta, or one that changes nothing, keeps the version", async (context) => {
      const member = await createUser(context, "alice@acme.test");
      const { resource: group } = await createGroup(context, "Engineers", { members: [member.id] });
      const empty = await update(context, "Group", group.id, { membership: { kind: "delta", add: [], remove: [] } });
      expect(empty?.resource.version).toBe(group.version);
      const idle = await update(context, "Group", group.id, {
        attributes: structuredClone(group.attributes),
        membership: { kind: "delta", add: [member.id], remove: [newId()] },
      });
      expect(idle?.membership?.added).toEqual([]);
      expect(idle?.membership?.removed).toEqual([]);
      expect(idle?.resource.version).toBe(group.version);
      const read = await mustGet(context, "Group", group.id, { members: true });
      expect(read.version).toBe(group.version);
      expect(read.lastModified).toBe(group.lastModified);
      expect(memberIds(read)).toEqual([member.id]);
    }),

    conformanceTest("every real change yields a new version", async (context) => {
      const alice = await createUser(context, "alice@acme.test");
      const seen = new Set([alice.version]);
      for (const nickName of ["One", "Two", "Three"]) {
        const result = await update(context, "User", alice.id, { attributes: userAttributes("alice@acme.test", { nickName }) });
        const version = result?.resource.version ?? "";
        expect(seen.has(version), `version after setting nickName ${nickName}`).toBe(false);
        seen.add(version);
      }
    }),
  ],
};
