import { afterEach, describe, expect, it } from "vitest";
import { describeAuditTrailBehaviour, fullEntry } from "../../audit/audit-trail.fixture.js";
import { sqlAuditTrail } from "./sql-audit-trail.js";
import { sqlStore, type SqlStore } from "./sql-store.js";

const opened: SqlStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function freshStore(): Promise<SqlStore> {
  const store = await sqlStore({ sqlite: ":memory:" });
  opened.push(store);
  return store;
}

describeAuditTrailBehaviour("sqlAuditTrail on SQLite", async () => ({
  trail: sqlAuditTrail((await freshStore()).db),
  org: (name) => name,
}));

describe("sqlAuditTrail on SQLite: the table", () => {
  it("is created by migration 6 (with migration 18's target) and holds ids, outcomes and targets, nothing else", async () => {
    const store = await freshStore();
    await sqlAuditTrail(store.db).record(fullEntry("acme", 3));
    const rows = await store.db.selectFrom("scimkit_audit").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!).sort()).toEqual(
      [
        "at",
        "bulk_id",
        "id",
        "operation",
        "org_id",
        "outcome",
        "resource_id",
        "resource_type",
        "scim_type",
        "status",
        "target",
        "token_id",
        "via",
      ].sort(),
    );
    const versions = await store.db.selectFrom("scimkit_migrations").select(["version", "name"]).where("version", "=", 6).execute();
    expect(versions).toEqual([{ version: 6, name: "audit-table" }]);
  });

  it("keeps an entry whatever happens to the organization's resources: rows are not tied to them", async () => {
    const store = await freshStore();
    const trail = sqlAuditTrail(store.db);
    await trail.record(fullEntry("acme", 1));
    await store.deleteOrganization?.("acme");
    expect(await trail.list("acme")).toHaveLength(1);
  });
});
