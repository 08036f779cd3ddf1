/**
 * Analytics migration 5 (invitation offers) on SQLite and PostgreSQL: a database at version 4
 * with an admin user and its pending invitation upgrades once, keeps both as they were (the
 * invitation still accepted with its code), and takes an invitation of that admin user's e-mail
 * from a scope that cannot see it as an offer from then on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMigrations, type SqlStore, sqlStore } from "scimkit/sql";
import { createTestSchema, describePostgres, type TestSchema } from "../../../../../src/store/sql/postgres-test-database.fixture.js";
import type { AdminUser } from "../../analytics-store.js";
import type { AnalyticsTables } from "../analytics-tables.js";
import { sqlAnalyticsStore } from "../sql-analytics-store.js";
import { ANALYTICS_MIGRATIONS, analyticsMigrations } from "./analytics-migrations.js";

const AT = "2026-03-01T09:00:00.000Z";
const LATER = "2026-03-01T10:00:00.000Z";
const EXPIRES = "2026-03-08T09:00:00.000Z";
const HOLDER = "01890a5d-ac96-774b-bcce-b302099a8001";
const OFFER = "01890a5d-ac96-774b-bcce-b302099a8002";
const CODE = "a".repeat(64);

function migrationChecks(open: () => Promise<SqlStore>): void {
  it("keeps the admin users and invitations of version 4, and stores offers from then on", async () => {
    const store = await open();
    try {
      expect(
        await runMigrations(
          store.db,
          store.dialect,
          analyticsMigrations.filter((migration) => migration.version <= 4),
          { namespace: ANALYTICS_MIGRATIONS },
        ),
      ).toEqual([1, 2, 3, 4]);
      // Written as the code before version 5 did.
      const db = store.db.withTables<AnalyticsTables>();
      await db
        .insertInto("scimkit_organizations")
        .values({ id: "acme", name: "Acme", status: "active", created_at: AT, updated_at: AT })
        .execute();
      await db
        .insertInto("scimkit_organizations")
        .values({ id: "globex", name: "Globex", status: "active", created_at: AT, updated_at: AT })
        .execute();
      await db
        .insertInto("scimkit_admin_users")
        .values({
          id: HOLDER,
          email: "held@example.test",
          role: "admin",
          status: "invited",
          invited_at: AT,
          invitation_expires_at: EXPIRES,
          activated_at: null,
          updated_at: AT,
        })
        .execute();
      await db.insertInto("scimkit_admin_user_organizations").values({ admin_user_id: HOLDER, org_id: "globex" }).execute();
      await db
        .insertInto("scimkit_invitations")
        .values({ code_hash: CODE, admin_user_id: HOLDER, created_at: AT, expires_at: EXPIRES, consumed_at: null })
        .execute();

      const analytics = await sqlAnalyticsStore(store, { migrate: false });
      // Version 5 and every later one.
      expect(await analytics.migrate()).toEqual(
        analyticsMigrations.filter((migration) => migration.version >= 5).map(({ version }) => version),
      );
      expect(await analytics.migrate()).toEqual([]);
      const holder: AdminUser = {
        id: HOLDER,
        email: "held@example.test",
        role: "admin",
        organizationIds: ["globex"],
        status: "invited",
        invitedAt: AT,
        invitationExpiresAt: EXPIRES,
        updatedAt: AT,
      };
      expect(await analytics.findAdminUserByEmail("held@example.test")).toEqual(holder);

      const offer: AdminUser = { ...holder, id: OFFER, organizationIds: ["acme"] };
      expect(await analytics.inviteAdminUser({ orgIds: ["acme"] }, offer, { codeHash: "b".repeat(64), expiresAt: EXPIRES })).toEqual({
        stored: "offer",
      });
      expect(await analytics.getAdminUser({ orgIds: ["acme"] }, OFFER)).toEqual(offer);
      const key = { id: OFFER, subject: { kind: "admin", adminUserId: HOLDER } as const, hash: "c".repeat(64), createdAt: LATER };
      expect((await analytics.acceptInvitation(CODE, LATER, key))?.status).toBe("active");
    } finally {
      await store.close();
    }
  });
}

describe("analytics migration 5 (invitation offers) on SQLite", () => {
  migrationChecks(() => sqlStore({ sqlite: ":memory:" }));
});

describePostgres("analytics migration 5 (invitation offers) on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  migrationChecks(async () => {
    if (!schema) throw new Error("the test schema was not created (see beforeAll)");
    return sqlStore({ postgres: schema.pool() });
  });
});
