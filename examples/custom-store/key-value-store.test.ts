/**
 * What the conformance kit cannot see from outside: that the example store does the work the
 * design promises (architecture §3) — an equality on an indexed attribute is a lookup, a membership
 * delta touches only the pairs it names, `members: false` reads no member — and that its keys
 * keep organizations apart whatever their ids contain. A backend that records every call shows it.
 */
import { describe, expect, it } from "vitest";
import { compileFilter, createSchemaRegistry, unwrap, type ResourceSchema, type ScimObject } from "scimkit/core";
import { uniqueKeysOf, type ResourceStore } from "scimkit/store";
import { memoryBackend, type KeyValueBackend } from "./key-value-backend.js";
import { keyValueStore } from "./key-value-store.js";

interface Recorded {
  readonly backend: KeyValueBackend;
  /** Every call since the last `reset`, as `"get res:…"`, `"scan mem:…"` and so on. */
  readonly calls: string[];
  reset(): void;
}

function recordingBackend(): Recorded {
  const inner = memoryBackend();
  const calls: string[] = [];
  const backend: KeyValueBackend = {
    get: (key) => (calls.push(`get ${key}`), inner.get(key)),
    set: (key, value) => (calls.push(`set ${key}`), inner.set(key, value)),
    delete: (key) => (calls.push(`delete ${key}`), inner.delete(key)),
    scan: (prefix) => (calls.push(`scan ${prefix}`), inner.scan(prefix)),
  };
  return { backend, calls, reset: () => void calls.splice(0) };
}

function userSchema(): ResourceSchema {
  const schema = createSchemaRegistry().resourceType("User");
  if (!schema) throw new Error("the default registry has a User resource type");
  return schema;
}

const users = userSchema();

async function createUser(store: ResourceStore, orgId: string, id: string, attributes: ScimObject): Promise<void> {
  const uniqueKeys = uniqueKeysOf(users, attributes);
  await store.create({ orgId, resourceType: "User", id, now: new Date().toISOString(), attributes, uniqueKeys, unknownMembers: "ignore" });
}

async function listUserIds(store: ResourceStore, orgId: string, filter?: string): Promise<string[]> {
  const result = await store.list({
    orgId,
    resourceType: "User",
    ...(filter === undefined ? {} : { filter: unwrap(compileFilter(users, filter)) }),
    page: { kind: "index", startIndex: 1, count: 100 },
    members: false,
  });
  return result.resources.map((resource) => resource.id);
}

describe("key-value example store", () => {
  it("answers eq on userName, externalId and id from index keys, without scanning records", async () => {
    const { backend, calls, reset } = recordingBackend();
    const store = keyValueStore(backend);
    for (let index = 0; index < 20; index++) {
      await createUser(store, "acme", `user-${index}`, { userName: `User${index}@acme.test`, externalId: `ext-${index}` });
    }
    for (const [filter, expected] of [
      ['userName eq "user7@ACME.test"', ["user-7"]],
      ['externalId eq "ext-3"', ["user-3"]],
      ['id eq "user-12"', ["user-12"]],
      ['userName eq "user1@acme.test" or externalId eq "ext-2"', ["user-1", "user-2"]],
    ] as const) {
      reset();
      expect(await listUserIds(store, "acme", filter), filter).toEqual(expected);
      expect(
        calls.filter((call) => call.startsWith("scan res:")),
        filter,
      ).toEqual([]);
      expect(calls.length, filter).toBeLessThanOrEqual(4);
    }
    // Anything else is a scan of the organization's records of that type, then `matchesFilter`.
    reset();
    expect(await listUserIds(store, "acme", 'userName sw "user1"')).toHaveLength(11);
    expect(calls).toEqual(["scan res:acme:User:"]);
  });

  it("applies a membership delta to a large group touching only the pairs it names", async () => {
    const { backend, calls, reset } = recordingBackend();
    const store = keyValueStore(backend);
    const ids = Array.from({ length: 1_000 }, (_, index) => `user-${index}`);
    for (const id of ids) await createUser(store, "acme", id, { userName: `${id}@acme.test` });
    const newcomer = "user-new";
    await createUser(store, "acme", newcomer, { userName: "new@acme.test" });
    await store.create({
      orgId: "acme",
      resourceType: "Group",
      id: "group",
      now: new Date().toISOString(),
      attributes: { displayName: "Everyone" },
      uniqueKeys: [{ attribute: "displayName", value: "everyone" }],
      members: ids,
      unknownMembers: "ignore",
    });

    reset();
    const result = await store.update({
      orgId: "acme",
      resourceType: "Group",
      id: "group",
      now: new Date().toISOString(),
      membership: { kind: "delta", add: [newcomer], remove: ["user-1"] },
      unknownMembers: "ignore",
      members: false,
    });
    expect(result?.membership).toEqual({ added: [newcomer], removed: ["user-1"], ignored: [] });
    // The group record, the newcomer's type, the two named pairs and their reverse keys: never the other 999.
    expect(calls).toEqual([
      "get res:acme:Group:group",
      "get mem:acme:group:user-1",
      "get type:acme:user-new",
      "get mem:acme:group:user-new",
      "delete mem:acme:group:user-1",
      "delete rev:acme:user-1:group",
      "set mem:acme:group:user-new",
      "set rev:acme:user-new:group",
      "set res:acme:Group:group",
    ]);

    reset();
    const group = await store.get({ orgId: "acme", resourceType: "Group", id: "group", members: false });
    expect(group && Object.hasOwn(group, "members")).toBe(false);
    expect(calls).toEqual(["get res:acme:Group:group"]);
  });

  it("keeps organizations apart even when an organization id contains the key separator", async () => {
    const store = keyValueStore(memoryBackend());
    await createUser(store, "acme", "a-1", { userName: "alice@acme.test" });
    // Unescaped, this user's record key would start with "res:acme:User:", the prefix of acme's users.
    await createUser(store, "acme:User", "b-1", { userName: "bob@acme.test" });
    expect(await listUserIds(store, "acme")).toEqual(["a-1"]);
    expect(await listUserIds(store, "acme:User")).toEqual(["b-1"]);
  });
});
