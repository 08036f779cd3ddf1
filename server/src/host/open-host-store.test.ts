/**
 * The host's stores come in pairs over one storage: the analytics store reads the learners the
 * SCIM store holds, and deleting an organization through it clears the SCIM side too.
 */
import { afterEach, describe, expect, it } from "vitest";
import { openHostStore, type HostStore } from "./open-host-store.js";

const NOW = "2025-06-15T12:00:00.000Z";

let opened: HostStore | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe.each([
  ["memory:", /^memory/],
  ["sqlite::memory:", /^SQLite :memory:$/],
])("openHostStore(%s)", (databaseUrl, description) => {
  it("pairs the SCIM store with an analytics store over the same data", async () => {
    const database = await openHostStore(databaseUrl);
    opened = database;
    expect(database.description).toMatch(description);
    await database.analytics.createOrganization({ id: "acme", name: "Acme", status: "active", createdAt: NOW, updatedAt: NOW });
    await database.store.create({
      orgId: "acme",
      resourceType: "User",
      id: "0197a000-0000-7000-8000-000000000001",
      now: NOW,
      attributes: { userName: "ada", emails: [{ value: "ada@example.com", type: "work" }] },
      uniqueKeys: [{ attribute: "userName", value: "ada" }],
      unknownMembers: "ignore",
    });
    const { token } = await database.tokens.issue("acme");

    const learners = await database.analytics.listLearners({ all: true }, {}, { limit: 10 });
    expect(learners.items).toEqual([
      expect.objectContaining({ id: "0197a000-0000-7000-8000-000000000001", orgId: "acme", userName: "ada", email: "ada@example.com" }),
    ]);

    expect(await database.analytics.deleteOrganization({ all: true }, "acme")).toBe(true);
    expect(
      await database.store.get({ orgId: "acme", resourceType: "User", id: "0197a000-0000-7000-8000-000000000001", members: false }),
    ).toBeUndefined();
    expect(await database.tokens.verify(token, "acme", { method: "GET", path: "/Users" })).toBeNull();
  });
});
