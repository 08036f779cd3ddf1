/**
 * `scimkit/sql`: the SQL `ResourceStore` and token repository over Kysely — SQLite
 * (better-sqlite3) and PostgreSQL (pg) built in, any other database through a `SqlDialect`.
 */
export { sqlStore } from "./sql-store.js";
export type { SqlStore, SqlStoreConnection, SqlStoreOptions } from "./sql-store.js";
export { DEFAULT_SQLITE_READERS } from "./open-sqlite.js";
export type { SqliteThreads } from "./open-sqlite.js";
export { sqlResourceStore } from "./sql-resource-store.js";
export type { SqlResourceStoreOptions } from "./sql-resource-store.js";
export { sqlTokenRepository } from "./sql-token-repository.js";
export { sqlAuditTrail } from "./sql-audit-trail.js";
export { isConnectionFailure } from "./is-connection-failure.js";
export { unavailableWhenDisconnected } from "./unavailable-when-disconnected.js";
export { DEFAULT_CONNECT_TIMEOUT_MS } from "./open-postgres.js";
export { runMigrations } from "./migrations/run-migrations.js";
export { sqlMigrations } from "./migrations/sql-migrations.js";
export type { Migration } from "./migrations/migration.js";
export { sqliteDialect } from "./dialects/sqlite-dialect.js";
export { createPostgresDialect, postgresDialect } from "./dialects/postgres-dialect.js";
export type { PostgresFilterDialectOptions } from "./filter/postgres-filter-dialect.js";
export { registerSqliteFunctions } from "./filter/register-sqlite-functions.js";
export type { RowLock, SqlColumnTypes, SqlDialect, TransactionWork } from "./dialects/sql-dialect.js";
export type { FilterDialect } from "./filter/filter-dialect.js";
export type {
  AdminUserOrganizationsTable,
  AdminUsersTable,
  ApiKeysTable,
  AuditTable,
  CampaignsTable,
  CounterColumn,
  EnrolmentsTable,
  FeedbackTable,
  InvitationsTable,
  MembersTable,
  MigrationsTable,
  OperationsTable,
  OrganizationsTable,
  ReportRowsTable,
  ResourcesTable,
  SimulationRecipientsTable,
  SimulationsTable,
  SqlStoreDatabase,
  TokensTable,
  UniqueKeysTable,
} from "./sql-tables.js";
