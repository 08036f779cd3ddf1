/**
 * The tables of the SQL store, as Kysely sees them. Every SCIM table is keyed by organization
 * first (architecture §3: nothing crosses tenants). Every name carries the `scimkit_` prefix so the
 * store can share a database with the host application (and with a client such as
 * `scimkit/analytics`, whose tables and migrations are its own). The DDL, with its indexes, is in
 * `migrations/0001-initial-tables.ts` and the migrations after it.
 */
import type { ColumnType } from "kysely";

/**
 * A counter column: a 64-bit integer in the database. Node's `pg` returns `bigint` columns as
 * decimal text and SQLite returns numbers, so reads accept both and code converts with
 * `Number()` / `String()`; writes pass numbers.
 */
export type CounterColumn = ColumnType<number | string, number, number>;

/** One SCIM resource (user, group, …) of one organization. Primary key `(org_id, id)`. */
export interface ResourcesTable {
  readonly org_id: string;
  /** Service-assigned id (UUID v7), unique within the organization across resource types. */
  readonly id: string;
  readonly resource_type: string;
  /** Optimistic-concurrency counter; `StoredResource.version` is its decimal text. Starts at 1. */
  readonly version: CounterColumn;
  /** ISO 8601, as the core's `now`: text, so it sorts and compares as the core's strings do. */
  readonly created: string;
  readonly last_modified: string;
  /** Copy of `attributes.externalId`, indexed for `externalId eq` (architecture §3 hot lookups). */
  readonly external_id: string | null;
  /** The canonical attributes as JSON (TEXT in SQLite, JSONB in PostgreSQL). */
  readonly attributes: unknown;
  /**
   * Hands out member positions, so members list in the order they were added: the highest
   * position given so far. `null` while the resource has no member list at all — one created
   * without `CreateRequest.members` (its type has no members) that no write ever gave members,
   * which therefore carries no `members` (the memory store's rule); groups start at 0.
   */
  readonly member_seq: CounterColumn | null;
}

/**
 * One row per `UniqueKey` of a resource: the primary key `(org_id, resource_type, attribute,
 * value)` makes uniqueness atomic in the database (409 `uniqueness`), and it is the index behind
 * `userName eq` and group `displayName eq`. Cascades away with its resource.
 */
export interface UniqueKeysTable {
  readonly org_id: string;
  readonly resource_type: string;
  /** `UniqueKey.attribute`: `userName`, or URN-qualified for an extension attribute. */
  readonly attribute: string;
  /** `UniqueKey.value`: NFC, lower-cased unless the attribute is caseExact (NFC since migration 7). */
  readonly value: string;
  readonly id: string;
}

/**
 * Group membership as rows (architecture §3): a delta is an insert or a delete, and reading a group
 * without members reads none of them. Primary key `(org_id, group_id, member_id)`. Foreign keys to
 * `scimkit_resources` cascade, so deleting a user removes it from every group even when a
 * concurrent add races the delete.
 */
export interface MembersTable {
  readonly org_id: string;
  readonly group_id: string;
  readonly member_id: string;
  /** The member's resource type (`User`, `Group`) when it was added. */
  readonly member_type: string;
  /** From the group's `member_seq`: the order members were added; unique within the group. */
  readonly position: CounterColumn;
}

/** Bearer tokens (spec §5): only SHA-256 hashes, never the secrets. Primary key `(org_id, id)`. */
export interface TokensTable {
  readonly id: string;
  readonly org_id: string;
  /** `hashToken(token)`, unique across all organizations. */
  readonly hash: string;
  readonly prefix: string;
  readonly label: string | null;
  readonly created_at: string;
  readonly rotated_at: string | null;
  readonly last_used_at: string | null;
  /** Version 9: when the current secret stops verifying; null when never. */
  readonly expires_at: string | null;
  /** Version 9: the digest a rotation with a grace period replaced; null otherwise. */
  readonly previous_hash: string | null;
  /** Version 9: until when `previous_hash` verifies. */
  readonly previous_hash_valid_until: string | null;
}

/**
 * Applied migrations, one row each, keyed by `(namespace, version)`: `"scim"` for the store's own
 * migrations, another name for each client that keeps tables beside them (`runMigrations`).
 */
export interface MigrationsTable {
  readonly namespace: string;
  readonly version: number;
  readonly name: string;
  /** ISO 8601 time the migration was applied. */
  readonly applied_at: string;
}

/**
 * The audit trail of SCIM writes (`sqlAuditTrail`, migration 6): one row per `AuditEntry`, ids
 * only, no attribute values. Primary key `(org_id, id)`, which also serves the newest-first list.
 */
export interface AuditTable {
  readonly org_id: string;
  /** UUID v7 given when the entry was kept: orders an organization's entries by time. */
  readonly id: string;
  /** ISO 8601 time of the outcome. */
  readonly at: string;
  readonly token_id: string | null;
  /** `create`, `replace`, `patch`, `delete` or `bulk`. */
  readonly operation: string;
  readonly resource_type: string | null;
  readonly resource_id: string | null;
  /** `success` or `failure`. */
  readonly outcome: string;
  /** The HTTP status: an `integer`, which both drivers return as a JavaScript number. */
  readonly status: number;
  readonly scim_type: string | null;
  /** `AuditEntry.target` (migration 18). */
  readonly target: string | null;
  /** `request` or `bulk`. */
  readonly via: string;
  readonly bulk_id: string | null;
}

/** A value every process on the database shares (migration 10), such as the cursor secret. */
export interface SettingsTable {
  readonly name: string;
  readonly value: string;
}

/** A token bucket every process on the database shares (migration 11, `sqlRateLimiter`). */
export interface RateBucketsTable {
  readonly key: string;
  /** Thousandths of a request; a `bigint`, which `pg` returns as a string. */
  readonly milli_tokens: CounterColumn;
  /** Milliseconds since the epoch of the last update; a `bigint` as `milli_tokens`. */
  readonly at_ms: CounterColumn;
}

/**
 * The provisioning log (`sqlRequestLog`, migration 12): one row per `RequestLogEntry`, its
 * members in snake case; an absent optional member is null, booleans are 0 or 1. Primary key
 * `(org_id, seq)`, which also serves the newest-first list.
 */
export interface RequestLogTable {
  readonly org_id: string;
  /** UUID v7 given when the entry was recorded: orders an organization's entries, and is the cursor. */
  readonly seq: string;
  readonly request_id: string;
  /** `RequestLogEntry.at` as it was given. */
  readonly at: string;
  /** `at` in milliseconds since the epoch: what time filters and retention by age compare. */
  readonly at_ms: CounterColumn;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly scim_type: string | null;
  readonly detail: string | null;
  readonly duration_ms: number;
  /** 1 when the token was verified, else 0. */
  readonly authenticated: number;
  readonly token_id: string | null;
  readonly client_address: string | null;
  readonly user_agent: string | null;
  readonly identity_provider: string;
  readonly resource_type: string | null;
  readonly resource_id: string | null;
  readonly bulk_operations: number | null;
  readonly request_body: string | null;
  /** 1, 0, or null when the entry did not say. */
  readonly request_body_truncated: number | null;
  /** `RequestLogEntry.requestBodyRefused`: why the body parser refused the body, or null. */
  readonly request_body_refused: string | null;
  readonly response_body: string | null;
  readonly response_body_truncated: number | null;
}

/** The columns of `scimkit_request_log` that `scimkit_unauthenticated_log` has too, under the same names. */
export type SharedLogColumns = Pick<
  RequestLogTable,
  | "seq"
  | "request_id"
  | "at"
  | "at_ms"
  | "method"
  | "path"
  | "status"
  | "scim_type"
  | "detail"
  | "duration_ms"
  | "client_address"
  | "user_agent"
  | "identity_provider"
>;

/**
 * The sampled requests without a verified token (migration 16): one row per kept
 * `UnauthenticatedRequestLogEntry`, apart from every organization's. Primary key `seq`.
 */
export interface UnauthenticatedLogTable extends SharedLogColumns {
  /** The organization id the path claimed, which may not exist: no organization owns the row. */
  readonly claimed_org_id: string;
}

/** Requests without a verified token the sample left out (migration 16), one row per minute. */
export interface UnauthenticatedDropsTable {
  /** The start of the minute, in milliseconds since the epoch. */
  readonly window_ms: CounterColumn;
  readonly dropped: CounterColumn;
}

/** Each organization's last event sequence (migration 13). Primary key `org_id`. */
export interface EventSequencesTable {
  readonly org_id: string;
  readonly last: CounterColumn;
}

/**
 * The event outbox (migration 13): one row per `OutboxEvent`. Primary key `(org_id, sequence)`;
 * `jti` is unique.
 */
export interface EventsTable {
  readonly org_id: string;
  readonly sequence: CounterColumn;
  readonly jti: string;
  readonly type: string;
  readonly resource_type: string;
  readonly resource_id: string;
  /** `{ resource, memberIds? }` as JSON. */
  readonly data: unknown;
  readonly recorded_at: string;
  /** 1 while the in-process listeners have yet to receive it, else 0. */
  readonly pending: number;
  /** Milliseconds since the epoch until which no process may claim it. */
  readonly lease_until_ms: CounterColumn;
}

/** RFC 9967 receivers and their delivery state (migration 14). Primary key `(org_id, id)`. */
export interface EventReceiversTable {
  readonly org_id: string;
  readonly id: string;
  readonly url: string;
  /** `push` or `poll`. */
  readonly delivery: string;
  /** JSON array of event URIs. */
  readonly events: string;
  readonly form: string;
  readonly audience: string;
  readonly authorization: string | null;
  readonly label: string | null;
  readonly created_at: string;
  readonly position: CounterColumn;
  readonly attempts: number;
  /** Milliseconds since the epoch before which no push is tried; 0 when due. */
  readonly next_attempt_ms: CounterColumn;
  /** JSON `DeliveryFailure`. */
  readonly last_error: string | null;
  readonly last_delivered_at: string | null;
  readonly delivered: CounterColumn;
  readonly rejected: CounterColumn;
  readonly lease_until_ms: CounterColumn;
  /** Events passed over as the receiver lagged beyond the backlog bound (migration 17). */
  readonly dropped: CounterColumn;
}

/** Each organization's SET signing key (migration 14) and the keys it replaced (migration 15). Primary key `org_id`. */
export interface EventKeysTable {
  readonly org_id: string;
  readonly kid: string;
  readonly private_jwk: string;
  readonly public_jwk: string;
  readonly created_at: string;
  /** JSON array of `RetiredSigningKey`, newest first; `null` before the first rotation. */
  readonly retired_keys: string | null;
}

/**
 * Counters of each organization's list of one resource type (migration 19): a create or delete of
 * that type increments one slot in its transaction, so the sum of the slots changes exactly when
 * the list's membership may have. Primary key `(org_id, resource_type, slot)`.
 */
export interface ListGenerationsTable {
  readonly org_id: string;
  readonly resource_type: string;
  readonly slot: number;
  readonly generation: CounterColumn;
}

/** The store's database, for `Kysely<SqlStoreDatabase>`. */
export interface SqlStoreDatabase {
  readonly scimkit_resources: ResourcesTable;
  readonly scimkit_unique_keys: UniqueKeysTable;
  readonly scimkit_members: MembersTable;
  readonly scimkit_tokens: TokensTable;
  readonly scimkit_migrations: MigrationsTable;
  readonly scimkit_audit: AuditTable;
  readonly scimkit_settings: SettingsTable;
  readonly scimkit_rate_buckets: RateBucketsTable;
  readonly scimkit_request_log: RequestLogTable;
  readonly scimkit_event_sequences: EventSequencesTable;
  readonly scimkit_events: EventsTable;
  readonly scimkit_event_receivers: EventReceiversTable;
  readonly scimkit_event_keys: EventKeysTable;
  readonly scimkit_unauthenticated_log: UnauthenticatedLogTable;
  readonly scimkit_unauthenticated_drops: UnauthenticatedDropsTable;
  readonly scimkit_list_generations: ListGenerationsTable;
}
