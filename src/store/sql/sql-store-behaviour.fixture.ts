/**
 * What the SQL store promises beyond the conformance kit, checked on every dialect by looking at
 * the tables themselves: failed writes leave no row behind, deletes take their keys and member
 * rows with them, replacements keep positions, tokens are stored as hashes, and long id lists
 * are split into statements the database accepts.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { v7 } from "uuid";
import { expect, it } from "vitest";
import { hashToken } from "../../auth/hash-token.js";
import { createTokenStore } from "../../auth/hashed-token-store.js";
import { isScimError } from "../../errors.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { sqlMigrations } from "./migrations/sql-migrations.js";
import type { StoredResource, UnknownMemberPolicy } from "../resource-store.js";
import type { SqlStore } from "./sql-store.js";
import { sqlTokenRepository } from "./sql-token-repository.js";

/** How a behaviour test gets its store, and gives it back. */
export interface BehaviourStores {
  /** A store for one test; tests use random organizations, so a shared store is fine. */
  readonly open: () => Promise<SqlStore>;
  /** Releases a store `open` gave. */
  readonly release: (store: SqlStore) => Promise<void>;
}

const request = { method: "GET", path: "/Users" } as const;

function userAttributes(userName: string): ScimObject {
  return { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName };
}

function groupAttributes(displayName: string): ScimObject {
  return { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName };
}

/** The helpers a test needs against one store, in one fresh organization. */
function organization(store: SqlStore) {
  const orgId = `org-${randomUUID()}`;
  let tick = 0;
  const now = (): string => new Date(Date.UTC(2024, 0, 1) + 1000 * tick++).toISOString();
  const createUser = async (userName: string): Promise<StoredResource> =>
    (
      await store.create({
        orgId,
        resourceType: "User",
        id: v7(),
        now: now(),
        attributes: userAttributes(userName),
        uniqueKeys: [{ attribute: "userName", value: userName.toLowerCase() }],
        unknownMembers: "ignore",
      })
    ).resource;
  const createGroup = async (displayName: string, members: readonly string[] = [], unknownMembers: UnknownMemberPolicy = "ignore") =>
    store.create({
      orgId,
      resourceType: "Group",
      id: v7(),
      now: now(),
      attributes: groupAttributes(displayName),
      uniqueKeys: [{ attribute: "displayName", value: displayName.toLowerCase() }],
      members,
      unknownMembers,
    });
  const members = async (groupId: string): Promise<string[]> =>
    (await store.get({ orgId, resourceType: "Group", id: groupId, members: true }))?.members?.map((member) => member.value) ?? [];
  const rows = async () => ({
    resources: await store.db.selectFrom("scimkit_resources").selectAll().where("org_id", "=", orgId).orderBy("id").execute(),
    keys: await store.db
      .selectFrom("scimkit_unique_keys")
      .selectAll()
      .where("org_id", "=", orgId)
      .orderBy("attribute")
      .orderBy("value")
      .execute(),
    members: await store.db
      .selectFrom("scimkit_members")
      .selectAll()
      .where("org_id", "=", orgId)
      .orderBy("group_id")
      .orderBy("position")
      .execute(),
  });
  return { orgId, now, createUser, createGroup, members, rows };
}

async function expectStatus(operation: Promise<unknown>, status: number): Promise<void> {
  const error = await operation.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(isScimError(error) ? error.status : error).toBe(status);
}

/** Registers the behaviour tests; call inside a `describe` of the dialect. */
export function sqlStoreBehaviour(stores: BehaviourStores): void {
  const withStore = (name: string, body: (store: SqlStore) => Promise<void>): void => {
    it(name, async () => {
      const store = await stores.open();
      try {
        await body(store);
      } finally {
        await stores.release(store);
      }
    });
  };

  withStore("a failing update (a taken displayName together with a membership change) leaves nothing half-written", async (store) => {
    const org = organization(store);
    const alice = await org.createUser("alice");
    const bob = await org.createUser("bob");
    await org.createGroup("Sales");
    const { resource: group } = await org.createGroup("Engineers", [alice.id]);
    const before = await org.rows();

    const update = store.update({
      orgId: org.orgId,
      resourceType: "Group",
      id: group.id,
      now: org.now(),
      attributes: groupAttributes("SALES"),
      uniqueKeys: [{ attribute: "displayName", value: "sales" }],
      membership: { kind: "delta", add: [bob.id], remove: [alice.id] },
      unknownMembers: "ignore",
      members: true,
    });
    await expectStatus(update, 409);
    // Every row as it was: the old name still held, the members, the version, lastModified.
    expect(await org.rows()).toEqual(before);
    expect(await org.members(group.id)).toEqual([alice.id]);
    await expectStatus(org.createGroup("engineers"), 409);
  });

  withStore("a create refused for unknown members or a taken name leaves no row, key or member behind", async (store) => {
    const org = organization(store);
    const alice = await org.createUser("alice");
    const before = await org.rows();
    await expectStatus(org.createGroup("Engineers", [alice.id, v7()], "reject"), 400);
    await org.createGroup("Sales");
    const withSales = await org.rows();
    await expectStatus(org.createGroup("sales", [alice.id]), 409);
    expect(await org.rows()).toEqual(withSales);
    expect(withSales.resources).toHaveLength(before.resources.length + 1);
    expect(withSales.members).toEqual([]);
  });

  withStore("deleting a resource deletes its unique keys and its member rows as group and as member", async (store) => {
    const org = organization(store);
    const alice = await org.createUser("alice");
    const bob = await org.createUser("bob");
    const { resource: inner } = await org.createGroup("Inner", [alice.id, bob.id]);
    const { resource: outer } = await org.createGroup("Outer", [inner.id, alice.id]);
    expect(await store.delete({ orgId: org.orgId, resourceType: "Group", id: inner.id, now: org.now() })).toBe(true);
    const { resources, keys, members } = await org.rows();
    expect(resources.map((row) => row.id).sort()).toEqual([alice.id, bob.id, outer.id].sort());
    expect(keys.map((row) => row.value).sort()).toEqual(["alice", "bob", "outer"]);
    expect(members.map((row) => [row.group_id, row.member_id])).toEqual([[outer.id, alice.id]]);
    const read = await store.get({ orgId: org.orgId, resourceType: "Group", id: outer.id, members: false });
    expect(read?.version).toBe(String(Number(outer.version) + 1));
  });

  withStore("a replace keeps the place of the members that stay and appends the new ones", async (store) => {
    const org = organization(store);
    const [a, b, c, d] = await Promise.all(["a", "b", "c", "d"].map((name) => org.createUser(name)));
    if (!a || !b || !c || !d) throw new Error("users were not created");
    const { resource: group } = await org.createGroup("Engineers", [a.id, b.id, c.id]);
    const result = await store.update({
      orgId: org.orgId,
      resourceType: "Group",
      id: group.id,
      now: org.now(),
      membership: { kind: "replace", ids: [d.id, c.id, a.id] },
      unknownMembers: "ignore",
      members: true,
    });
    expect(result?.membership).toEqual({ added: [d.id], removed: [b.id], ignored: [] });
    expect(result?.resource.members?.map((member) => member.value)).toEqual([a.id, c.id, d.id]);
    expect(await org.members(group.id)).toEqual([a.id, c.id, d.id]);
  });

  withStore("tokens are stored as SHA-256 hashes only, and rotate and revoke take effect at once", async (store) => {
    const orgId = `org-${randomUUID()}`;
    const { token, record } = await store.tokens.issue(orgId, { label: "Okta" });
    const rows = await store.db.selectFrom("scimkit_tokens").selectAll().where("org_id", "=", orgId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.hash).toBe(hashToken(token));
    // No column holds the secret, or more of it than the short public prefix.
    for (const value of Object.values(rows[0] ?? {})) expect(String(value)).not.toContain(token.slice(0, 16));
    expect(await store.tokens.verify(token, orgId, request)).toEqual({ orgId, tokenId: record.id, label: "Okta" });
    expect(await store.tokens.verify(token, `org-${randomUUID()}`, request)).toBeNull();

    const rotated = await store.tokens.rotate(orgId, record.id);
    if (!rotated) throw new Error("rotate found no token");
    expect(await store.tokens.verify(token, orgId, request)).toBeNull();
    expect(await store.tokens.verify(rotated.token, orgId, request)).toEqual({ orgId, tokenId: record.id, label: "Okta" });
    const afterRotation = await store.db.selectFrom("scimkit_tokens").selectAll().where("org_id", "=", orgId).execute();
    expect(afterRotation.map((row) => row.hash)).toEqual([hashToken(rotated.token)]);
    expect(afterRotation[0]?.rotated_at).toBe(rotated.record.rotatedAt);

    const second = await store.tokens.issue(orgId);
    expect((await store.tokens.list(orgId)).map((entry) => entry.id)).toEqual([record.id, second.record.id]);
    expect(await store.tokens.revoke(orgId, record.id)).toBe(true);
    expect(await store.tokens.verify(rotated.token, orgId, request)).toBeNull();
    expect(await store.tokens.verify(second.token, orgId, request)).not.toBeNull();
    expect(await store.tokens.revoke(orgId, record.id)).toBe(false);
    expect(await store.tokens.revokeAll(orgId)).toBe(1);
    expect(await store.tokens.verify(second.token, orgId, request)).toBeNull();
  });

  withStore("tokens expire, and a rotation's grace period keeps the replaced digest working until it ends, then never", async (store) => {
    const orgId = `org-${randomUUID()}`;
    let time = Date.parse("2026-01-01T00:00:00.000Z");
    const tokens = createTokenStore({
      repository: sqlTokenRepository(store.db, store.dialect),
      now: () => new Date(time),
      lastUsedResolutionMs: 0,
    });
    const expiring = await tokens.issue(orgId, { expiresAt: "2026-01-01T01:00:00.000Z" });
    expect(expiring.record.expiresAt).toBe("2026-01-01T01:00:00.000Z");
    expect(await tokens.verify(expiring.token, orgId, request)).not.toBeNull();
    time = Date.parse("2026-01-01T01:00:00.000Z");
    expect(await tokens.verify(expiring.token, orgId, request)).toBeNull();

    const { token, record } = await tokens.issue(orgId);
    const rotated = await tokens.rotate(orgId, record.id, { graceSeconds: 60, expiresAt: "2026-02-01T00:00:00.000Z" });
    if (!rotated) throw new Error("rotate found no token");
    expect(rotated.record.previousSecretValidUntil).toBe("2026-01-01T01:01:00.000Z");
    expect(rotated.record.expiresAt).toBe("2026-02-01T00:00:00.000Z");
    const [row] = await store.db.selectFrom("scimkit_tokens").selectAll().where("org_id", "=", orgId).where("id", "=", record.id).execute();
    expect(row?.previous_hash).toBe(hashToken(token));
    expect(row?.hash).toBe(hashToken(rotated.token));
    // Within the grace both secrets verify; the old one's use does not mark the new one used.
    expect(await tokens.verify(token, orgId, request)).toEqual({ orgId, tokenId: record.id });
    expect((await tokens.list(orgId)).find((entry) => entry.id === record.id)?.lastUsedAt).toBeUndefined();
    expect(await tokens.verify(rotated.token, orgId, request)).toEqual({ orgId, tokenId: record.id });
    // Another organization's path finds neither digest.
    expect(await tokens.verify(token, `org-${randomUUID()}`, request)).toBeNull();
    time += 60_000;
    expect(await tokens.verify(token, orgId, request)).toBeNull();
    expect(await tokens.verify(rotated.token, orgId, request)).not.toBeNull();

    // A rotation without grace drops the previous digest at once.
    const again = await tokens.rotate(orgId, record.id);
    if (!again) throw new Error("rotate found no token");
    const [after] = await store.db
      .selectFrom("scimkit_tokens")
      .selectAll()
      .where("org_id", "=", orgId)
      .where("id", "=", record.id)
      .execute();
    expect([after?.previous_hash, after?.previous_hash_valid_until, after?.expires_at]).toEqual([null, null, null]);
    expect(await tokens.verify(rotated.token, orgId, request)).toBeNull();
    expect(await tokens.verify(again.token, orgId, request)).not.toBeNull();
    expect(await tokens.revokeAll(orgId)).toBe(2);
  });

  withStore("a value holding U+0000 is stored exactly or refused with 400 invalidValue, never a database error", async (store) => {
    const org = organization(store);
    const id = v7();
    const attributes = { ...userAttributes("nul"), nickName: "a\u0000b" };
    const outcome = await store
      .create({
        orgId: org.orgId,
        resourceType: "User",
        id,
        now: org.now(),
        attributes,
        uniqueKeys: [{ attribute: "userName", value: "nul" }],
        unknownMembers: "ignore",
      })
      .then(
        (result) => result.resource.attributes,
        (error: unknown) => (isScimError(error) ? [error.status, error.scimType] : error),
      );
    if (Array.isArray(outcome)) {
      expect(outcome).toEqual([400, "invalidValue"]);
      expect((await org.rows()).resources).toEqual([]);
    } else {
      expect(outcome).toEqual(attributes);
      expect((await store.get({ orgId: org.orgId, resourceType: "User", id, members: false }))?.attributes).toEqual(attributes);
    }
    const read = await store.get({ orgId: org.orgId, resourceType: "User", id: "x\u0000", members: false }).then(
      (resource) => resource,
      (error: unknown) => (isScimError(error) ? error.status : error),
    );
    expect([undefined, 400]).toContain(read);
  });

  // Regression: PostgreSQL cannot index a B-tree entry over ~2.7 kB, and answered a long userName
  // or externalId with an error (a 500); random hex does not compress below that.
  withStore(
    "a userName or externalId too long to index is stored exactly or refused with 400 invalidValue, leaving no row",
    async (store) => {
      const org = organization(store);
      const long = randomBytes(10_000).toString("hex");
      const cases: readonly (readonly [ScimObject, string])[] = [
        [userAttributes(long), long],
        [{ ...userAttributes("short"), externalId: long }, "short"],
      ];
      for (const [attributes, userName] of cases) {
        const id = v7();
        const outcome = await store
          .create({
            orgId: org.orgId,
            resourceType: "User",
            id,
            now: org.now(),
            attributes,
            uniqueKeys: [{ attribute: "userName", value: userName }],
            unknownMembers: "ignore",
          })
          .then(
            (result) => result.resource.attributes,
            (error: unknown) => (isScimError(error) ? [error.status, error.scimType] : error),
          );
        if (Array.isArray(outcome)) {
          expect(outcome).toEqual([400, "invalidValue"]);
          expect((await org.rows()).resources).toEqual([]);
        } else {
          expect(outcome).toEqual(attributes);
          expect((await store.get({ orgId: org.orgId, resourceType: "User", id, members: false }))?.attributes).toEqual(attributes);
          await store.delete({ orgId: org.orgId, resourceType: "User", id, now: org.now() });
        }
      }
    },
  );

  withStore("migrate() on an up-to-date database applies nothing", async (store) => {
    expect(await store.migrate()).toEqual([]);
    const versions = await store.db.selectFrom("scimkit_migrations").select(["version", "name"]).orderBy("version").execute();
    expect(versions.map((row) => [Number(row.version), row.name])).toEqual(
      sqlMigrations.map((migration) => [migration.version, migration.name]),
    );
  });
}
