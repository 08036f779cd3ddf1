import { describe, expect, it } from "vitest";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { uniqueKeysOf } from "../unique-keys.js";
import { T0, users } from "./memory-store.fixture.js";
import { createResourceTable, indexEntry, indexedIds, unindexEntry, type ResourceTable } from "./resource-table.js";

function tableOf(resources: Readonly<Record<string, ScimObject>>): ResourceTable {
  const table = createResourceTable();
  for (const [id, attributes] of Object.entries(resources)) {
    const uniqueKeys = uniqueKeysOf(users, attributes);
    indexEntry(table, { id, version: 1, created: T0, lastModified: T0, attributes, uniqueKeys, members: undefined });
  }
  return table;
}

const table = tableOf({
  u1: { userName: "Alice", externalId: "E1" },
  u2: { userName: "bob", externalId: "E1" },
  u3: { userName: "carol", externalId: "e1" },
});

describe("indexedIds", () => {
  it("lists an id only when a resource has it, exactly", () => {
    expect(indexedIds(table, { index: "id", value: "u2" })).toEqual(["u2"]);
    expect(indexedIds(table, { index: "id", value: "U2" })).toEqual([]);
  });

  it("lists every holder of an externalId, exactly as written", () => {
    expect(indexedIds(table, { index: "externalId", value: "E1" })).toEqual(["u1", "u2"]);
    expect(indexedIds(table, { index: "externalId", value: "e1" })).toEqual(["u3"]);
    expect(indexedIds(table, { index: "externalId", value: "E2" })).toEqual([]);
  });

  it("finds the holder of a unique value by its normalized key", () => {
    expect(indexedIds(table, { index: "unique", attribute: "userName", value: "alice" })).toEqual(["u1"]);
    expect(indexedIds(table, { index: "unique", attribute: "userName", value: "dave" })).toEqual([]);
    expect(indexedIds(table, { index: "unique", attribute: "displayName", value: "alice" })).toEqual([]);
  });

  it("follows writes: a removed resource is no candidate and releases its values", () => {
    const local = tableOf({ u1: { userName: "alice", externalId: "E1" } });
    unindexEntry(local, local.entries.get("u1")!);
    expect(indexedIds(local, { index: "id", value: "u1" })).toEqual([]);
    expect(indexedIds(local, { index: "unique", attribute: "userName", value: "alice" })).toEqual([]);
    expect(indexedIds(local, { index: "externalId", value: "E1" })).toEqual([]);
    expect(local.externalIds.size).toBe(0);
  });

  it("keeps a shared externalId's holders through removals and re-indexing, down to none", () => {
    const local = tableOf({ u1: { externalId: "S" }, u2: { externalId: "S" }, u3: { externalId: "S" } });
    const holders = () => indexedIds(local, { index: "externalId", value: "S" });
    expect(holders()).toEqual(["u1", "u2", "u3"]);
    unindexEntry(local, local.entries.get("u2")!);
    expect(holders()).toEqual(["u1", "u3"]);
    unindexEntry(local, local.entries.get("u1")!);
    expect(holders()).toEqual(["u3"]);
    // Re-indexing the same record (an update that keeps the value) does not duplicate it.
    indexEntry(local, local.entries.get("u3")!);
    expect(holders()).toEqual(["u3"]);
    unindexEntry(local, local.entries.get("u3")!);
    expect(holders()).toEqual([]);
    expect(local.externalIds.size).toBe(0);
  });
});
