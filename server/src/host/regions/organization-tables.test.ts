/**
 * A move copies an organization's rows table by table (`ORGANIZATION_TABLES`), so a table a later
 * migration adds with an organization's data must be listed there — or said here to stay behind,
 * and why — or a move would leave that data in the old region. Read off a database migrated to
 * the newest version of both namespaces.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqlAnalyticsStore } from "@scimkit/server";
import { sql } from "kysely";
import { sqlStore } from "scimkit/sql";
import { expect, it } from "vitest";
import { ORGANIZATION_TABLES } from "./organization-tables.js";

/** Tables with an `org_id` that a move does not copy, each with the reason. */
const STAYING: Readonly<Record<string, string>> = {
  scimkit_admin_user_organizations: "admin users span organizations: the moved one is dropped from theirs",
  scimkit_invitation_offer_organizations: "invitation offers span organizations, as admin users",
  scimkit_region_directory: "the replica of other regions' directories: no personal data, each region's own",
  scimkit_region_moves: "each host's own record of its side of a move",
};
/** Tables without an `org_id`: the service's, or reached through another table. */
const WITHOUT_ORGANIZATION: Readonly<Record<string, string>> = {
  scimkit_migrations: "the schema's versions",
  scimkit_settings: "the service's secrets (the cursor key)",
  scimkit_rate_buckets: "keyed by namespace: a move starts the organization with a full bucket",
  scimkit_unauthenticated_log: "requests without a verified token, bound to no organization",
  scimkit_unauthenticated_drops: "counts of that sample",
  scimkit_organizations: "copied: the organization's own row, by id",
  scimkit_admin_users: "the operator's and customers' admins, across organizations",
  scimkit_invitations: "admin users' invitations",
  scimkit_invitation_offers: "offers of admin access, across organizations",
  scimkit_invitation_offer_codes: "their codes",
  scimkit_api_keys: "the operator's and admin users' keys",
  scimkit_report_rows: "copied: through their operation",
};

it("lists every table holding an organization's rows, or says why it stays", async () => {
  const dir = mkdtempSync(join(tmpdir(), "scimkit-organization-tables-"));
  try {
    const store = await sqlStore({ sqlite: join(dir, "tables.sqlite") });
    await sqlAnalyticsStore(store);
    const tables = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' and name like 'scimkit\\_%' escape '\\' and name not like 'scimkit_emails_search%'`.execute(
      store.db,
    );
    const moved = new Set(ORGANIZATION_TABLES.map((table) => table.name));
    const unaccounted: string[] = [];
    for (const { name } of tables.rows) {
      const columns = await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(store.db);
      const withOrganization = columns.rows.some((column) => column.name === "org_id");
      const known = withOrganization ? moved.has(name) || name in STAYING : name in WITHOUT_ORGANIZATION;
      if (!known) unaccounted.push(`${name}${withOrganization ? " (has org_id)" : ""}`);
    }
    await store.close();
    expect(unaccounted).toEqual([]);
    // The reader saw the tables, or every table would pass.
    expect(tables.rows.length).toBeGreaterThan(25);
    for (const table of ORGANIZATION_TABLES) expect(tables.rows.map((row) => row.name)).toContain(table.name);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
