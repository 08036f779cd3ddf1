/**
 * The SQL store's migrations, in order, in the `"scim"` namespace. Append new versions here;
 * never edit a released one.
 */
import { initialTables } from "./0001-initial-tables.js";
import { emailsSearch } from "./0002-emails-search.js";
import { sqlitePlannerStatistics } from "./0004-sqlite-planner-statistics.js";
import { sqliteEmailsSearch } from "./0005-sqlite-emails-search.js";
import { auditTable } from "./0006-audit-table.js";
import { nfcUniqueKeys } from "./0007-nfc-unique-keys.js";
import { sqliteEmailsSearchRows } from "./0008-sqlite-emails-search-rows.js";
import { tokenExpiryAndGrace } from "./0009-token-expiry-and-grace.js";
import { settingsTable } from "./0010-settings-table.js";
import { rateBucketsTable } from "./0011-rate-buckets-table.js";
import { requestLogTable } from "./0012-request-log-table.js";
import { eventOutboxTables } from "./0013-event-outbox-tables.js";
import { eventReceiverTables } from "./0014-event-receiver-tables.js";
import { eventKeyRotation } from "./0015-event-key-rotation.js";
import { unauthenticatedRequestLogTables } from "./0016-unauthenticated-request-log-tables.js";
import { eventReceiverDropped } from "./0017-event-receiver-dropped.js";
import { auditTarget } from "./0018-audit-target.js";
import { listGenerations } from "./0019-list-generations.js";
import type { Migration } from "./migration.js";

/**
 * Every migration of the SQL store, by increasing version. Version 3 is retired: it created the
 * analytics tables, which moved to the `"analytics"` namespace of `scimkit/analytics` (a database
 * that applied it keeps its record until the analytics store moves it there).
 */
export const sqlMigrations: readonly Migration[] = [
  initialTables,
  emailsSearch,
  sqlitePlannerStatistics,
  sqliteEmailsSearch,
  auditTable,
  nfcUniqueKeys,
  sqliteEmailsSearchRows,
  tokenExpiryAndGrace,
  settingsTable,
  rateBucketsTable,
  requestLogTable,
  eventOutboxTables,
  eventReceiverTables,
  eventKeyRotation,
  unauthenticatedRequestLogTables,
  eventReceiverDropped,
  auditTarget,
  listGenerations,
];
