/**
 * `scimkit/sql`: the SQL `ResourceStore` and token repository over Kysely — SQLite
 * (better-sqlite3) and PostgreSQL (pg) built in, any other database through a `SqlDialect` (its
 * `FilterDialect` part reads the store's JSON through `JsonRef`s) — with the SQL implementations
 * of the other features' contracts: the audit trail, the provisioning log (`sqlRequestLog`), the
 * rate limiter, event receivers and signing keys. `tableStore` is a `ResourceStore` over the
 * application's own tables, described by a mapping; `tableStoreTriggersSql`, the triggers for the
 * application's migration that let its `startIndex` walks skip OFFSET.
 *
 * A client keeping tables of its own beside the store's, in the same database, uses the SCIM data
 * where it is instead of copying it: the table types, and `runMigrations` with a namespace of its
 * own; the resources read in its own queries, joined to its rows (`resourceColumns`,
 * `storedResourceOf`), selected by SCIM filters (`resourceFilterSql`) and read through the
 * dialect's JSON hooks at `resourceAttribute`s, never by the row's JSON layout; rows locked for a
 * write the dialect's way (`lockRows`); an organization's SCIM rows deleted inside its own transaction
 * (`deleteScimOrganizationRows`), so its rows and the store's go together. The service's
 * analytics store is one.
 */
export { sqlStore } from "./sql-store.js";
export type { SqlStore, SqlStoreConnection, SqlStoreOptions } from "./sql-store.js";
export { DEFAULT_SQLITE_READERS } from "./open-sqlite.js";
export type { SqliteThreads } from "./open-sqlite.js";
export { sqlResourceStore } from "./sql-resource-store.js";
export { tableStore } from "./table/table-store.js";
export type { TableStore, TableStoreConnection, TableStoreOptions } from "./table/table-store.js";
export { tableStoreTriggersSql } from "./table/table-store-triggers-sql.js";
export type { TableStoreTriggersOptions } from "./table/table-store-triggers-sql.js";
export type {
  ChildTableMapping,
  ColumnMapping,
  ColumnValue,
  GroupTableMapping,
  IdKind,
  IdMapping,
  MemberTableMapping,
  OrganizationMapping,
  ScimValue,
  TableHooks,
  TableMapping,
} from "./table/table-mapping.js";
export type { SqlResourceStoreOptions } from "./sql-resource-store.js";
export { sqlTokenRepository } from "./sql-token-repository.js";
export { sqlAuditTrail } from "./sql-audit-trail.js";
export { sqlRateLimiter } from "./sql-rate-limiter.js";
export type { SqlRateLimiterDatabase, SqlRateLimiterOptions } from "./sql-rate-limiter.js";
export { isConnectionFailure } from "./is-connection-failure.js";
export { unavailableWhenDisconnected } from "./unavailable-when-disconnected.js";
export { DEFAULT_CONNECT_TIMEOUT_MS } from "./open-postgres.js";
export { runMigrations } from "./migrations/run-migrations.js";
export type { RunMigrationsOptions } from "./migrations/run-migrations.js";
export { sqlMigrations } from "./migrations/sql-migrations.js";
export type { Migration, MigrationKey } from "./migrations/migration.js";
export { sqliteDialect } from "./dialects/sqlite-dialect.js";
export { createPostgresDialect, postgresDialect } from "./dialects/postgres-dialect.js";
export type { PostgresFilterDialectOptions } from "./filter/postgres-filter-dialect.js";
export { registerSqliteFunctions } from "./filter/register-sqlite-functions.js";
export type { RowLock, SqlColumnTypes, SqlDialect, TransactionWork } from "./dialects/sql-dialect.js";
export type { FilterDialect } from "./filter/filter-dialect.js";
export type {
  AuditTable,
  CounterColumn,
  MembersTable,
  MigrationsTable,
  ResourcesTable,
  SettingsTable,
  SqlStoreDatabase,
  TokensTable,
  UniqueKeysTable,
} from "./sql-tables.js";
export { deleteScimOrganizationRows } from "./delete-scim-organization-rows.js";
export { resourceAttribute, resourceColumns, storedResourceOf } from "./resource-row.js";
export { resourceFilterSql } from "./resource-filter-sql.js";
export { lockRows } from "./lock-rows.js";
export type { ResourceRow } from "./resource-row.js";
export type { JsonBase, JsonRef } from "./filter/json-ref.js";
export { sqlRequestLog, DEFAULT_REQUEST_LOG_MAX_AGE_MS, DEFAULT_REQUEST_LOG_MAX_ENTRIES_PER_ORG } from "./request-log/sql-request-log.js";
export type { SqlRequestLog, SqlRequestLogDatabase, SqlRequestLogOptions } from "./request-log/sql-request-log.js";
export type { RequestLogRetentionResult } from "./request-log/request-log-retention.js";
export { RequestLogOverflowError } from "./request-log/request-log-overflow-error.js";
export type { RequestLogTable } from "./sql-tables.js";
export { sqlEventReceiverStore, sqlSigningKeyRepository } from "./sql-event-receiver-store.js";
export type { SqlEventReceiverStoreOptions } from "./sql-event-receiver-store.js";
