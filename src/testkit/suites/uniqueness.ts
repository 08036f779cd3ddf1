/**
 * Uniqueness (architecture §3, RFC 7643 §2.1): `userName` case-insensitively and group `displayName`,
 * per organization, whatever the Unicode normalization form, enforced by the store atomically —
 * a clash is a 409 `uniqueness` that writes nothing.
 */
import { expect } from "vitest";
import { ScimType } from "../../errors.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { conformanceTest, type ConformanceContext, type ConformanceSuite } from "../conformance-test.js";
import {
  countResources,
  createGroup,
  createResource,
  createUser,
  expectScimError,
  groupAttributes,
  idsOf,
  listResources,
  mustGet,
  uniqueKeys,
  userAttributes,
  type ResourceTypeId,
} from "./helpers.js";

function replaceAttributes(context: ConformanceContext, type: ResourceTypeId, id: string, attributes: ScimObject) {
  return context.store.update({
    orgId: context.orgId,
    resourceType: type,
    id,
    now: context.now(),
    attributes,
    uniqueKeys: uniqueKeys(type, attributes),
    unknownMembers: "ignore",
    members: false,
  });
}

export const uniquenessSuite: ConformanceSuite = {
  title: "uniqueness",
  tests: [
    conformanceTest("a userName taken in the organization, in any case, fails with 409 uniqueness and writes nothing", async (context) => {
      await createUser(context, "Alice@Acme.test");
      await expectScimError(createResource(context, "User", userAttributes("alice@acme.TEST")), 409, ScimType.uniqueness);
      await expectScimError(createResource(context, "User", userAttributes("Alice@Acme.test")), 409, ScimType.uniqueness);
      expect(await countResources(context, "User")).toBe(1);
    }),

    conformanceTest("a group displayName taken in the organization fails with 409 uniqueness and writes nothing", async (context) => {
      const { resource: first } = await createGroup(context, "Engineers");
      const user = await createUser(context, "alice@acme.test");
      await expectScimError(createGroup(context, "engineers", { members: [user.id] }), 409, ScimType.uniqueness);
      expect(await countResources(context, "Group")).toBe(1);
      expect((await mustGet(context, "Group", first.id, { members: true })).members).toEqual([]);
    }),

    conformanceTest("updating to another resource's userName fails with 409 and leaves the resource unchanged", async (context) => {
      await createUser(context, "alice@acme.test");
      const bob = await createUser(context, "bob@acme.test", { nickName: "Bobby" });
      await expectScimError(
        replaceAttributes(context, "User", bob.id, userAttributes("ALICE@acme.test", { nickName: "Changed" })),
        409,
        ScimType.uniqueness,
      );
      const read = await mustGet(context, "User", bob.id);
      expect(read.attributes).toEqual(bob.attributes);
      expect(read.version).toBe(bob.version);
      expect(read.lastModified).toBe(bob.lastModified);
    }),

    conformanceTest("updating a group to another group's displayName fails with 409", async (context) => {
      await createGroup(context, "Engineers");
      const { resource: sales } = await createGroup(context, "Sales");
      await expectScimError(replaceAttributes(context, "Group", sales.id, groupAttributes("ENGINEERS")), 409, ScimType.uniqueness);
      expect((await mustGet(context, "Group", sales.id)).attributes).toEqual(sales.attributes);
    }),

    conformanceTest("an update may keep its own userName, or change only its case", async (context) => {
      const alice = await createUser(context, "alice@acme.test");
      const kept = await replaceAttributes(context, "User", alice.id, userAttributes("alice@acme.test", { nickName: "Al" }));
      expect(kept?.resource.attributes["nickName"]).toBe("Al");
      const recased = await replaceAttributes(context, "User", alice.id, userAttributes("Alice@ACME.test", { nickName: "Al" }));
      expect(recased?.resource.attributes["userName"]).toBe("Alice@ACME.test");
      expect((await mustGet(context, "User", alice.id)).attributes["userName"]).toBe("Alice@ACME.test");
    }),

    conformanceTest(
      "a userName in NFD clashes with its NFC form, in any case, and the stored value keeps what was sent",
      async (context) => {
        const composed = "\u00c5ngstr\u00f6m@acme.test";
        const decomposed = "A\u030angstro\u0308m@acme.test";
        const ada = await createUser(context, composed);
        await expectScimError(createResource(context, "User", userAttributes(decomposed)), 409, ScimType.uniqueness);
        await expectScimError(createResource(context, "User", userAttributes(decomposed.toUpperCase())), 409, ScimType.uniqueness);
        expect(await countResources(context, "User")).toBe(1);
        // Renaming to the other form of one's own name keeps the key and stores what was sent.
        const renamed = await replaceAttributes(context, "User", ada.id, userAttributes(decomposed));
        expect(renamed?.resource.attributes["userName"]).toBe(decomposed);
        expect((await mustGet(context, "User", ada.id)).attributes["userName"]).toBe(decomposed);
        await expectScimError(createResource(context, "User", userAttributes(composed)), 409, ScimType.uniqueness);
      },
    ),

    conformanceTest("a group displayName in NFD clashes with its NFC form, also on rename", async (context) => {
      await createGroup(context, "Caf\u00e9");
      await expectScimError(createGroup(context, "Cafe\u0301"), 409, ScimType.uniqueness);
      const { resource: bar } = await createGroup(context, "Bar");
      await expectScimError(replaceAttributes(context, "Group", bar.id, groupAttributes("CAFE\u0301")), 409, ScimType.uniqueness);
      expect((await mustGet(context, "Group", bar.id)).attributes).toEqual(bar.attributes);
    }),

    conformanceTest(
      "userName eq finds its holder in either normalization form, and after a rename only by the new name",
      async (context) => {
        const composed = "\u00c5ngstr\u00f6m@acme.test";
        const decomposed = "A\u030angstro\u0308m@acme.test";
        const ada = await createUser(context, composed);
        await createUser(context, "angstrom@acme.test");
        const found = async (text: string): Promise<string[]> => idsOf((await listResources(context, "User", { filter: text })).resources);
        expect(await found(`userName eq "${decomposed}"`)).toEqual([ada.id]);
        expect(await found(`userName eq "${decomposed.toUpperCase()}"`)).toEqual([ada.id]);
        expect(await found(`userName eq "${composed}"`)).toEqual([ada.id]);
        expect(await found(`userName ne "${decomposed}"`)).toHaveLength(1);
        await replaceAttributes(context, "User", ada.id, userAttributes("Zoe\u0308@acme.test"));
        expect(await found(`userName eq "${composed}"`)).toEqual([]);
        expect(await found(`userName eq "ZO\u00cb@acme.test"`)).toEqual([ada.id]);
      },
    ),

    conformanceTest("a userName is free again after its holder is deleted", async (context) => {
      const alice = await createUser(context, "alice@acme.test");
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "User", id: alice.id })).toBe(true);
      const again = await createUser(context, "ALICE@acme.test");
      expect(again.attributes["userName"]).toBe("ALICE@acme.test");
    }),

    conformanceTest("a userName is free again after its holder is renamed, and the new one is taken", async (context) => {
      const alice = await createUser(context, "alice@acme.test");
      await replaceAttributes(context, "User", alice.id, userAttributes("alice.smith@acme.test"));
      const newcomer = await createUser(context, "Alice@acme.test");
      expect(newcomer.attributes["userName"]).toBe("Alice@acme.test");
      await expectScimError(createResource(context, "User", userAttributes("alice.SMITH@acme.test")), 409, ScimType.uniqueness);
      expect(await countResources(context, "User")).toBe(2);
    }),

    conformanceTest("the same userName and displayName may exist in two organizations", async (context) => {
      await createUser(context, "alice@acme.test");
      await createGroup(context, "Engineers");
      const other = await createUser(context, "alice@acme.test", {}, { orgId: context.otherOrgId });
      const { resource: otherGroup } = await createGroup(context, "Engineers", { orgId: context.otherOrgId });
      expect(other.attributes["userName"]).toBe("alice@acme.test");
      expect(otherGroup.attributes["displayName"]).toBe("Engineers");
      expect(await countResources(context, "User", context.otherOrgId)).toBe(1);
    }),

    conformanceTest("externalId is not unique", async (context) => {
      const alice = await createUser(context, "alice@acme.test", { externalId: "shared" });
      const bob = await createUser(context, "bob@acme.test", { externalId: "shared" });
      expect(alice.attributes["externalId"]).toBe("shared");
      expect(bob.attributes["externalId"]).toBe("shared");
      expect(await countResources(context, "User")).toBe(2);
    }),
  ],
};
