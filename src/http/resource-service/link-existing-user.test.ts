import { describe, expect, it } from "vitest";
import { ScimError, ScimType } from "../../errors.js";
import { rfc7643Profile } from "../../scim/schema/resource-profile.js";
import { createSchemaRegistry } from "../../scim/schema/schema-registry.js";
import { memoryStore } from "../../store/memory/memory-store.js";
import type { StoredResource } from "../../store/resource-store.js";
import { uniquenessError } from "../../store/store-errors.js";
import { uniqueKeysOf } from "../../store/unique-keys.js";
import { createOrLink, existingUserPolicy, findUserToLink, linkLockKeys } from "./link-existing-user.js";
import { createTypeHandler } from "./type-handler.js";

const registry = createSchemaRegistry();
const users = createTypeHandler(registry.resourceType("User")!, rfc7643Profile);
const groups = createTypeHandler(registry.resourceType("Group")!, rfc7643Profile);

const resource = (id: string): StoredResource => ({ id, version: "1", created: "t", lastModified: "t", attributes: {} });

async function storeWith(...people: { id: string; userName: string; externalId?: string }[]) {
  const store = memoryStore();
  for (const { id, ...attributes } of people) {
    await store.create({
      orgId: "acme",
      resourceType: "User",
      id,
      now: "2026-01-01T00:00:00.000Z",
      attributes,
      uniqueKeys: uniqueKeysOf(users.schema, attributes),
      unknownMembers: "ignore",
    });
  }
  return store;
}

describe("existingUserPolicy", () => {
  it("applies the organization's policy to users only", () => {
    expect(existingUserPolicy(users, { orgId: "acme", baseUrl: "", existingUsers: "link" })).toBe("link");
    expect(existingUserPolicy(groups, { orgId: "acme", baseUrl: "", existingUsers: "link" })).toBe("conflict");
    expect(existingUserPolicy(users, { orgId: "acme", baseUrl: "" })).toBe("conflict");
  });
});

describe("linkLockKeys", () => {
  it("keys userName as uniqueness compares it, externalId exactly, in a fixed order", () => {
    const decomposed = linkLockKeys(users, "acme", { userName: "A\u030Angstro\u0308m", externalId: "X1" });
    const composed = linkLockKeys(users, "acme", { userName: "ÅNGSTRÖM", externalId: "X1" });
    expect(decomposed).toEqual(composed);
    expect(decomposed).toHaveLength(2);
    expect(decomposed[0]).toContain("userName");
    expect(linkLockKeys(users, "acme", { userName: "a", externalId: "x1" })[1]).not.toBe(decomposed[1]);
    expect(linkLockKeys(users, "globex", { userName: "a" })).not.toEqual(linkLockKeys(users, "acme", { userName: "a" }));
  });
});

describe("findUserToLink", () => {
  it("finds one user by userName (case-insensitive, NFC) or by externalId (exact)", async () => {
    const store = await storeWith({ id: "u1", userName: "Ångström", externalId: "ext-1" }, { id: "u2", userName: "other" });
    expect((await findUserToLink(store, users, "acme", { userName: "a\u030Angstro\u0308m" }))?.id).toBe("u1");
    expect((await findUserToLink(store, users, "acme", { userName: "new", externalId: "ext-1" }))?.id).toBe("u1");
    expect(await findUserToLink(store, users, "acme", { userName: "new", externalId: "EXT-1" })).toBeUndefined();
    // Both identifiers naming the same user is one match.
    expect((await findUserToLink(store, users, "acme", { userName: "ångström", externalId: "ext-1" }))?.id).toBe("u1");
    expect(await findUserToLink(store, users, "globex", { userName: "Ångström" })).toBeUndefined();
  });

  it("throws 409 uniqueness naming each user when the identifiers find more than one", async () => {
    const store = await storeWith(
      { id: "u1", userName: "first", externalId: "shared" },
      { id: "u2", userName: "second", externalId: "x2" },
      { id: "u3", userName: "third", externalId: "shared" },
    );
    const split = findUserToLink(store, users, "acme", { userName: "first", externalId: "x2" });
    await expect(split).rejects.toMatchObject({ status: 409, scimType: ScimType.uniqueness });
    await expect(split).rejects.toThrow(/userName "first" matches user u1; externalId "x2" matches user u2/);
    await expect(findUserToLink(store, users, "acme", { userName: "new", externalId: "shared" })).rejects.toThrow(/u1.*u3/);
  });
});

describe("createOrLink", () => {
  it("links when a user is found and creates when none is", async () => {
    const steps = (found: StoredResource | undefined) => ({
      find: async () => found,
      create: async () => "created",
      link: async (existing: StoredResource) => `linked ${existing.id}`,
    });
    expect(await createOrLink(steps(resource("u1")))).toBe("linked u1");
    expect(await createOrLink(steps(undefined))).toBe("created");
  });

  it("looks again after a create lost to another's (409) and links to the winner", async () => {
    const found: (StoredResource | undefined)[] = [undefined, resource("winner")];
    const result = await createOrLink({
      find: async () => found.shift(),
      create: async () => {
        throw uniquenessError("userName");
      },
      link: async (existing) => `linked ${existing.id}`,
    });
    expect(result).toBe("linked winner");
  });

  it("looks again after the user to link was deleted (404) and creates", async () => {
    const found: (StoredResource | undefined)[] = [resource("gone"), undefined];
    const result = await createOrLink({
      find: async () => found.shift(),
      create: async () => "created",
      link: async () => {
        throw new ScimError(404, undefined, "not found");
      },
    });
    expect(result).toBe("created");
  });

  it("passes other errors through at once, and gives up with the last error after a few lost races", async () => {
    let finds = 0;
    await expect(
      createOrLink({
        find: async () => {
          finds += 1;
          return resource("u1");
        },
        create: async () => "created",
        link: async () => {
          throw new ScimError(412, undefined, "stale");
        },
      }),
    ).rejects.toMatchObject({ status: 412 });
    expect(finds).toBe(1);

    finds = 0;
    await expect(
      createOrLink({
        find: async () => {
          finds += 1;
          return undefined;
        },
        create: async () => {
          throw uniquenessError("urn:example:badge");
        },
        link: async () => "linked",
      }),
    ).rejects.toMatchObject({ status: 409, scimType: ScimType.uniqueness });
    expect(finds).toBe(5);
  });
});
