/**
 * The replica of other regions' directories in SQL (`scimkit_region_directory`, issue 30): a
 * region's rows replaced in one write transaction, every row read in primary-key order.
 */
import type { Kysely, Selectable } from "kysely";
import { lockRows, type SqlDialect } from "scimkit/sql";
import type { OrganizationStatus, RegionDirectoryEntry, RegionDirectoryStore } from "../analytics-store.js";
import { checkRegionEntries } from "../check-region-entries.js";
import type { AnalyticsDatabase, RegionDirectoryTable } from "./analytics-tables.js";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";

/** The columns of a row: the bound parameters each inserted entry costs. */
const COLUMNS = 6;

/** Rows per insert: a few statements for a large feed, each far below any dialect's parameter bound. */
const ROWS_PER_INSERT = 500;

function entryOf(row: Selectable<RegionDirectoryTable>): RegionDirectoryEntry {
  return {
    id: row.org_id,
    name: row.name,
    ...(row.parent_id === null ? {} : { parentId: row.parent_id }),
    homeRegion: row.home_region,
    // Written only by `replaceRegionEntries` from typed entries: read back as the state it was.
    status: row.status as OrganizationStatus,
    updatedAt: row.updated_at,
  };
}

function rowOf(entry: RegionDirectoryEntry): RegionDirectoryTable {
  return {
    org_id: entry.id,
    name: entry.name,
    parent_id: entry.parentId ?? null,
    home_region: entry.homeRegion,
    status: entry.status,
    updated_at: entry.updatedAt,
  };
}

/** The `RegionDirectoryStore` of the SQL analytics store over `db`. */
export function regionDirectoryQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): RegionDirectoryStore {
  const rowsPerInsert = Math.max(1, Math.min(ROWS_PER_INSERT, Math.floor(dialect.maxParameters / COLUMNS)));
  return {
    async replaceRegionEntries(region, entries) {
      checkRegionEntries(region, entries);
      const rows = entries.map(rowOf);
      await analyticsWriteTransaction(db, dialect, async (trx) => {
        // Two processes syncing one region at once (PostgreSQL, READ COMMITTED): the second waits
        // here for the first to commit, so its delete, a later statement, sees the first's rows
        // and removes them, where a delete alone would miss them and its inserts would collide.
        // Only the lowest id is locked: every replacer queues on that one row, so none holds a row
        // another waits for. SQLite's write transaction excludes other writers already (no clause).
        await lockRows(
          trx.selectFrom("scimkit_region_directory").select("org_id").where("home_region", "=", region).orderBy("org_id").limit(1),
          dialect,
          "delete",
        ).execute();
        await trx.deleteFrom("scimkit_region_directory").where("home_region", "=", region).execute();
        // An id another region holds fails its insert on the primary key, and the transaction,
        // deletes and earlier chunks included, rolls back.
        for (let start = 0; start < rows.length; start += rowsPerInsert) {
          await trx
            .insertInto("scimkit_region_directory")
            .values(rows.slice(start, start + rowsPerInsert))
            .execute();
        }
      });
    },

    async listRegionEntries() {
      const rows = await db.selectFrom("scimkit_region_directory").selectAll().orderBy("org_id").execute();
      return rows.map(entryOf);
    },
  };
}
