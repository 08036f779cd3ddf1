/**
 * Create, read, update and delete of one resource: what `StoredResource` holds after each call,
 * and that the store keeps its own copy of everything it is given or gives out.
 */
import { expect } from "vitest";
import { conformanceTest, type ConformanceSuite } from "../conformance-test.js";
import {
  ENTERPRISE_URN,
  countResources,
  createResource,
  createUser,
  getResource,
  idsOf,
  listResources,
  mustGet,
  newId,
  tryMutate,
  uniqueKeys,
  userAttributes,
} from "./helpers.js";

const FULL_USER = {
  externalId: "701984",
  name: { givenName: "Barbara", familyName: "Jensen", formatted: "Ms. Barbara J Jensen" },
  nickName: "Babs",
  active: true,
  emails: [
    { value: "bjensen@work.test", type: "work", primary: true },
    { value: "babs@home.test", type: "home" },
  ],
  [ENTERPRISE_URN]: { department: "Tour Operations", manager: { value: "26118915-6090-4610-87e4-49d8ca9f808d" } },
};

export const crudSuite: ConformanceSuite = {
  title: "create, read, update, delete",
  tests: [
    conformanceTest("create returns the stored resource with the given id, times and attributes", async (context) => {
      const id = newId();
      const now = context.now();
      const attributes = userAttributes("bjensen@acme.test", FULL_USER);
      const { resource } = await createResource(context, "User", structuredClone(attributes), { id, now });
      expect(resource.id).toBe(id);
      expect(typeof resource.version).toBe("string");
      expect(resource.version).not.toBe("");
      expect(resource.created).toBe(now);
      expect(resource.lastModified).toBe(now);
      expect(resource.attributes).toEqual(attributes);
    }),

    conformanceTest("get returns what create stored", async (context) => {
      const attributes = userAttributes("bjensen@acme.test", FULL_USER);
      const { resource: created } = await createResource(context, "User", structuredClone(attributes));
      const read = await mustGet(context, "User", created.id);
      expect(read.id).toBe(created.id);
      expect(read.version).toBe(created.version);
      expect(read.created).toBe(created.created);
      expect(read.lastModified).toBe(created.lastModified);
      expect(read.attributes).toEqual(attributes);
    }),

    conformanceTest("get of an unknown id is undefined", async (context) => {
      await createUser(context, "someone@acme.test");
      expect(await getResource(context, "User", newId())).toBeUndefined();
      expect(await getResource(context, "User", "not-a-uuid")).toBeUndefined();
    }),

    conformanceTest("attribute values round-trip exactly (unicode, quotes, nesting, extensions, booleans)", async (context) => {
      const attributes = userAttributes("zoë.o'brien@acme.test", {
        displayName: 'Zoë "Zed" O\'Brien \\ 日本語 🚀',
        nickName: "line\nbreak\ttab",
        active: false,
        name: { givenName: "Zoë", familyName: "O'Brien", honorificSuffix: "" },
        addresses: [{ type: "work", streetAddress: "1 %_ Street", country: "IE", primary: true }],
        [ENTERPRISE_URN]: { employeeNumber: "00042", division: "R&D" },
      });
      const { resource } = await createResource(context, "User", structuredClone(attributes));
      expect(resource.attributes).toEqual(attributes);
      expect((await mustGet(context, "User", resource.id)).attributes).toEqual(attributes);
    }),

    conformanceTest("update replaces the attributes, bumps version and lastModified, keeps created", async (context) => {
      const createdAt = context.now();
      const created = await createUser(context, "bjensen@acme.test", FULL_USER, { now: createdAt });
      // The new set drops nickName and the enterprise extension: an update replaces, it never merges.
      const replaced = userAttributes("bjensen@acme.test", { name: { givenName: "Babs" }, title: "Guide" });
      const updatedAt = context.now();
      const result = await context.store.update({
        orgId: context.orgId,
        resourceType: "User",
        id: created.id,
        now: updatedAt,
        attributes: structuredClone(replaced),
        uniqueKeys: uniqueKeys("User", replaced),
        unknownMembers: "ignore",
        members: false,
      });
      expect(result).toBeDefined();
      expect(result?.resource.attributes).toEqual(replaced);
      expect(result?.resource.version).not.toBe(created.version);
      expect(result?.resource.lastModified).toBe(updatedAt);
      expect(result?.resource.created).toBe(createdAt);
      const read = await mustGet(context, "User", created.id);
      expect(read.attributes).toEqual(replaced);
      expect(read.version).toBe(result?.resource.version);
      expect(read.lastModified).toBe(updatedAt);
      expect(read.created).toBe(createdAt);
    }),

    conformanceTest("update of an unknown id is undefined and creates nothing", async (context) => {
      await createUser(context, "someone@acme.test");
      const attributes = userAttributes("ghost@acme.test");
      const result = await context.store.update({
        orgId: context.orgId,
        resourceType: "User",
        id: newId(),
        now: context.now(),
        attributes,
        uniqueKeys: uniqueKeys("User", attributes),
        unknownMembers: "ignore",
        members: false,
      });
      expect(result).toBeUndefined();
      expect(await countResources(context, "User")).toBe(1);
    }),

    conformanceTest("delete returns true, then the resource is gone from get and list", async (context) => {
      const kept = await createUser(context, "kept@acme.test");
      const doomed = await createUser(context, "doomed@acme.test");
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "User", id: doomed.id })).toBe(true);
      expect(await getResource(context, "User", doomed.id)).toBeUndefined();
      const list = await listResources(context, "User");
      expect(idsOf(list.resources)).toEqual([kept.id]);
      expect(list.totalResults).toBe(1);
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "User", id: doomed.id })).toBe(false);
    }),

    conformanceTest("delete of an unknown id is false", async (context) => {
      await createUser(context, "someone@acme.test");
      expect(await context.store.delete({ orgId: context.orgId, resourceType: "User", id: newId() })).toBe(false);
      expect(await countResources(context, "User")).toBe(1);
    }),

    conformanceTest("returned resources are copies: mutating them changes nothing stored", async (context) => {
      const attributes = userAttributes("bjensen@acme.test", FULL_USER);
      const { resource: created } = await createResource(context, "User", structuredClone(attributes));
      const vandalize = (resource: { readonly attributes: Record<string, unknown> }): void => {
        tryMutate(() => {
          resource.attributes["userName"] = "vandal@acme.test";
        });
        tryMutate(() => {
          const name = resource.attributes["name"] as Record<string, unknown>;
          name["familyName"] = "Vandal";
        });
        tryMutate(() => {
          (resource.attributes["emails"] as unknown[]).push({ value: "vandal@acme.test" });
        });
        tryMutate(() => {
          delete resource.attributes[ENTERPRISE_URN];
        });
      };
      vandalize(created);
      vandalize(await mustGet(context, "User", created.id));
      const listed = (await listResources(context, "User")).resources[0];
      expect(listed).toBeDefined();
      if (listed) vandalize(listed);
      expect((await mustGet(context, "User", created.id)).attributes).toEqual(attributes);
      expect((await listResources(context, "User")).resources[0]?.attributes).toEqual(attributes);
    }),

    conformanceTest("request attributes are copied: mutating them after the call changes nothing stored", async (context) => {
      const attributes = userAttributes("bjensen@acme.test", FULL_USER);
      const sent = structuredClone(attributes);
      const { resource } = await createResource(context, "User", sent);
      sent["userName"] = "vandal@acme.test";
      (sent["name"] as Record<string, unknown>)["familyName"] = "Vandal";
      (sent["emails"] as unknown[]).length = 0;
      expect((await mustGet(context, "User", resource.id)).attributes).toEqual(attributes);

      const replaced = userAttributes("babs@acme.test", { name: { familyName: "Jensen" } });
      const update = structuredClone(replaced);
      await context.store.update({
        orgId: context.orgId,
        resourceType: "User",
        id: resource.id,
        now: context.now(),
        attributes: update,
        uniqueKeys: uniqueKeys("User", replaced),
        unknownMembers: "ignore",
        members: false,
      });
      (update["name"] as Record<string, unknown>)["familyName"] = "Vandal";
      update["nickName"] = "vandal";
      expect((await mustGet(context, "User", resource.id)).attributes).toEqual(replaced);
    }),
  ],
};
