import { describe, expect, it } from "vitest";
import { attribute } from "../../scim/schema/attribute-definition.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { createSchemaRegistry, type ResourceSchema } from "../../scim/schema/schema-registry.js";
import { uniqueKeysOf } from "../unique-keys.js";
import { indexCandidates } from "./index-candidates.js";
import { filterOf, groups, users } from "./memory-store.fixture.js";
import { createResourceTable, indexEntry, unindexEntry, type ResourceTable } from "./resource-table.js";

const BADGE_URN = "urn:example:params:scim:schemas:extension:badge:2.0:User";
const badgeUsers = createSchemaRegistry({
  schemas: [
    {
      id: BADGE_URN,
      name: "Badge",
      description: "A case-exact unique badge number",
      attributes: [attribute("badge", { caseExact: true, uniqueness: "server" })],
    },
  ],
  extensions: [{ resourceType: "User", schema: BADGE_URN, required: false }],
}).resourceType("User")!;

function tableOf(resources: Readonly<Record<string, ScimObject>>, schema: ResourceSchema = badgeUsers): ResourceTable {
  const table = createResourceTable();
  for (const [id, attributes] of Object.entries(resources)) {
    indexEntry(table, {
      id,
      version: "1",
      created: "2024-01-01T00:00:00.000Z",
      lastModified: "2024-01-01T00:00:00.000Z",
      attributes,
      uniqueKeys: uniqueKeysOf(schema, attributes),
      members: undefined,
    });
  }
  return table;
}

const table = tableOf({
  u1: { userName: "Alice", externalId: "E1", [BADGE_URN]: { badge: "B-1" } },
  u2: { userName: "bob", externalId: "E1" },
  u3: { userName: "carol", externalId: "e1" },
});
const candidates = (text: string) => indexCandidates(table, filterOf(badgeUsers, text));

describe("indexCandidates", () => {
  it("looks ids up exactly", () => {
    expect(candidates('id eq "u2"')).toEqual(["u2"]);
    expect(candidates('id eq "U2"')).toEqual([]);
  });

  it("looks externalId up exactly, since RFC 7643 §3.1 makes it caseExact, and returns every holder", () => {
    expect(candidates('externalId eq "E1"')).toEqual(["u1", "u2"]);
    expect(candidates('externalId eq "e1"')).toEqual(["u3"]);
    expect(candidates('externalId eq "E2"')).toEqual([]);
  });

  it("lower-cases the value for a unique attribute that is not caseExact", () => {
    expect(candidates('userName eq "ALICE"')).toEqual(["u1"]);
    expect(candidates('userName eq "dave"')).toEqual([]);
    const teams = tableOf({ g1: { displayName: "Staff" }, g2: { displayName: "Admins" } }, groups);
    expect(indexCandidates(teams, filterOf(groups, 'displayName eq "STAFF"'))).toEqual(["g1"]);
  });

  it("keeps the case of a caseExact unique extension attribute", () => {
    expect(candidates(`${BADGE_URN}:badge eq "B-1"`)).toEqual(["u1"]);
    expect(candidates(`${BADGE_URN}:badge eq "b-1"`)).toEqual([]);
  });

  it("leaves every other comparison to a scan", () => {
    for (const text of [
      'userName ne "alice"',
      'userName sw "a"',
      "userName eq null",
      "userName pr",
      'displayName eq "Alice"',
      'name.givenName eq "Alice"',
      'emails[type eq "work"]',
      'not (id eq "u1")',
    ]) {
      expect(candidates(text), text).toBeUndefined();
    }
  });

  it("narrows an and to its most selective indexed child", () => {
    expect(candidates('externalId eq "E1" and userName eq "bob"')).toEqual(["u2"]);
    expect(candidates('title eq "x" and externalId eq "E1"')).toEqual(["u1", "u2"]);
    expect(candidates('title eq "x" and nickName eq "y"')).toBeUndefined();
  });

  it("unions an or only when every child is indexed", () => {
    expect(candidates('id eq "u3" or userName eq "alice" or id eq "u1"')).toEqual(["u3", "u1"]);
    expect(candidates('id eq "u3" or title eq "x"')).toBeUndefined();
  });

  it("follows writes: a removed resource is no candidate and releases its values", () => {
    const local = tableOf({ u1: { userName: "alice", externalId: "E1" } });
    const entry = local.entries.get("u1")!;
    unindexEntry(local, entry);
    expect(indexCandidates(local, filterOf(users, 'userName eq "alice"'))).toEqual([]);
    expect(indexCandidates(local, filterOf(users, 'externalId eq "E1"'))).toEqual([]);
    expect(local.externalIds.size).toBe(0);
  });
});
