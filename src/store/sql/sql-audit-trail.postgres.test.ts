import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeAuditTrailBehaviour } from "../../audit/audit-trail.fixture.js";
import { createTestSchema, describePostgres, type TestSchema } from "./postgres-test-database.fixture.js";
import { sqlAuditTrail } from "./sql-audit-trail.js";
import { sqlStore, type SqlStore } from "./sql-store.js";

describePostgres("sqlAuditTrail on PostgreSQL", (url) => {
  let schema: TestSchema;
  let store: SqlStore;
  beforeAll(async () => {
    schema = await createTestSchema(url);
    store = await sqlStore({ postgres: schema.pool() });
  });
  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  // One schema for the file; each test's organizations are its own.
  describeAuditTrailBehaviour("sqlAuditTrail on PostgreSQL", async () => {
    const prefix = randomBytes(4).toString("hex");
    return { trail: sqlAuditTrail(store.db), org: (name) => `${prefix}-${name}` };
  });

  describe("the table", () => {
    it("returns the status as a number (an integer column, not a bigint pg would give as text)", async () => {
      const trail = sqlAuditTrail(store.db);
      await trail.record({
        orgId: "numbers",
        operation: "create",
        at: new Date().toISOString(),
        outcome: "success",
        status: 201,
        via: "request",
      });
      const [kept] = await trail.list("numbers");
      expect(kept?.status).toBe(201);
    });
  });
});
