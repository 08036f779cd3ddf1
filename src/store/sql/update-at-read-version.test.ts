/**
 * An update written from the version its caller read (`UpdateRequest.read`, issue 29 point 3): on
 * SQLite one message to the writer thread instead of two, and the same outcome as the general path
 * whenever the read no longer holds — a row at another version (412), gone (undefined), or holding
 * other unique keys than its read attributes derive. On PostgreSQL too when it is configured.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { isScimError } from "../../errors.js";
import type { ReadSnapshot, StoredResource, UniqueKey, UpdateRequest } from "../resource-store.js";
import { createTestSchema, describePostgres, type TestSchema } from "./postgres-test-database.fixture.js";
import { sqlStore, type SqlStore } from "./sql-store.js";
import { messagesSentDuring } from "./sqlite-worker/sent-statements.fixture.js";

const NOW = "2024-01-01T00:00:00.000Z";
const LATER = "2024-01-02T00:00:00.000Z";

const attributesOf = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName,
  emails: [{ value: `${userName}@example.com`, type: "work", primary: true }],
  ...extra,
});
const keysOf = (userName: string): UniqueKey[] => [{ attribute: "userName", value: userName }];

async function create(store: SqlStore, orgId: string, id: string, userName: string): Promise<StoredResource> {
  const created = await store.create({
    orgId,
    resourceType: "User",
    id,
    now: NOW,
    attributes: attributesOf(userName),
    uniqueKeys: keysOf(userName),
    unknownMembers: "ignore",
  });
  return created.resource;
}

/** What the core sends: the new attributes at the version `current` was read at. */
function updateFrom(
  current: StoredResource,
  orgId: string,
  userName: string,
  extra: Record<string, unknown>,
  held?: UniqueKey[],
): UpdateRequest {
  const read: ReadSnapshot = {
    version: current.version,
    created: current.created,
    attributes: current.attributes,
    uniqueKeys: held ?? keysOf(String(current.attributes["userName"])),
  };
  return {
    orgId,
    resourceType: "User",
    id: current.id,
    now: LATER,
    expectedVersion: current.version,
    attributes: attributesOf(userName, extra),
    uniqueKeys: keysOf(userName),
    read,
    unknownMembers: "ignore",
    members: false,
  };
}

async function heldKeys(store: SqlStore, orgId: string, id: string): Promise<string[]> {
  const rows = await store.db
    .selectFrom("scimkit_unique_keys")
    .select(["attribute", "value"])
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .orderBy("value")
    .execute();
  return rows.map((row) => `${row.attribute}=${row.value}`);
}

function describeUpdates(name: string, open: () => Promise<SqlStore>): void {
  describe(`an update from the version read, on ${name}`, () => {
    let store: SqlStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(() => store.close());

    it("writes the attributes, moves the keys and answers as the general path does", async () => {
      const current = await create(store, "renames", "u1", "ada");
      const written = await store.update(updateFrom(current, "renames", "ada.l", { active: false }));
      expect(written?.resource).toEqual({
        id: "u1",
        version: "2",
        created: NOW,
        lastModified: LATER,
        attributes: attributesOf("ada.l", { active: false }),
      });
      expect(await store.get({ orgId: "renames", resourceType: "User", id: "u1", members: false })).toEqual(written?.resource);
      expect(await heldKeys(store, "renames", "u1")).toEqual(["userName=ada.l"]);
      // The old name is free, the new one taken.
      await create(store, "renames", "u2", "ada");
      const clash = await create(store, "renames", "u3", "ada.l").catch((error: unknown) => error);
      expect(isScimError(clash) && clash.status).toBe(409);
    });

    it("a name another resource holds is that name's 409, and nothing of the write is kept", async () => {
      const current = await create(store, "clashes", "u1", "bob");
      await create(store, "clashes", "u2", "carol");
      const refused = await store.update(updateFrom(current, "clashes", "carol", {})).catch((error: unknown) => error);
      expect(isScimError(refused) && refused.status).toBe(409);
      expect(await store.get({ orgId: "clashes", resourceType: "User", id: "u1", members: false })).toEqual(current);
      expect(await heldKeys(store, "clashes", "u1")).toEqual(["userName=bob"]);
    });

    it("a read another write overtook is 412 and writes nothing; a resource deleted since is not found", async () => {
      const current = await create(store, "stale", "u1", "dan");
      await store.update(updateFrom(current, "stale", "dan", { title: "first" }));
      const late = await store.update(updateFrom(current, "stale", "dan", { title: "second" })).catch((error: unknown) => error);
      expect(isScimError(late) && late.status).toBe(412);
      expect(await store.get({ orgId: "stale", resourceType: "User", id: "u1", members: false })).toMatchObject({
        version: "2",
        attributes: { title: "first" },
      });
      const gone = await create(store, "stale", "u2", "eve");
      await store.delete({ orgId: "stale", resourceType: "User", id: "u2" });
      expect(await store.update(updateFrom(gone, "stale", "eve", { title: "x" }))).toBeUndefined();
    });

    it("a row holding other keys than its read derives goes the general path: no key leaks, none is lost", async () => {
      // The caller believes the row holds nothing (a profile that made userName unique since).
      const current = await create(store, "keys", "u1", "fay");
      const written = await store.update(updateFrom(current, "keys", "fay.b", {}, []));
      expect(written?.resource.version).toBe("2");
      expect(await heldKeys(store, "keys", "u1")).toEqual(["userName=fay.b"]);
      // It believes it holds a key it does not: that key is claimed, not assumed.
      const again = await store.get({ orgId: "keys", resourceType: "User", id: "u1", members: false });
      if (!again) throw new Error("the user is gone");
      await store.update(updateFrom(again, "keys", "fay.c", {}, [...keysOf("fay.b"), { attribute: "externalId", value: "x-1" }]));
      expect(await heldKeys(store, "keys", "u1")).toEqual(["userName=fay.c"]);
    });
  });
}

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), "scimkit-read-version-"));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});
let files = 0;

describeUpdates("SQLite", () => sqlStore({ sqlite: join(directory, `scim-${files++}.db`) }));

describe("on the SQLite writer thread", () => {
  it("is one message — the row at its version, its keys, its e-mail search rows, the commit — where the general path sends two", async () => {
    const store = await sqlStore({ sqlite: join(directory, `scim-${files++}.db`) });
    try {
      const current = await create(store, "acme", "u1", "gus");
      const messages = await messagesSentDuring(() => store.update(updateFrom(current, "acme", "gus.h", { active: false })));
      expect(messages).toHaveLength(1);
      const statements = messages[0] ?? [];
      expect(statements[0]).toBe("begin immediate");
      expect(statements.at(-1)).toBe("commit");
      expect(statements.filter((text) => text.startsWith("select"))).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describePostgres("with PostgreSQL", (url) => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(() => schema.drop());
  describeUpdates("PostgreSQL", () => sqlStore({ postgres: url, schema: schema.name }));
});
