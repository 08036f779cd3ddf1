/**
 * The SQL store's migrations, in order. Append new versions here; never edit a released one.
 */
import { initialTables } from "./0001-initial-tables.js";
import { emailsSearch } from "./0002-emails-search.js";
import { analyticsTables } from "./0003-analytics-tables.js";
import { sqlitePlannerStatistics } from "./0004-sqlite-planner-statistics.js";
import { sqliteEmailsSearch } from "./0005-sqlite-emails-search.js";
import { auditTable } from "./0006-audit-table.js";
import { nfcUniqueKeys } from "./0007-nfc-unique-keys.js";
import { sqliteEmailsSearchRows } from "./0008-sqlite-emails-search-rows.js";
import type { Migration } from "./migration.js";

/** Every migration of the SQL store, by increasing version. */
export const sqlMigrations: readonly Migration[] = [initialTables, emailsSearch, analyticsTables, sqlitePlannerStatistics, sqliteEmailsSearch, auditTable, nfcUniqueKeys, sqliteEmailsSearchRows];
