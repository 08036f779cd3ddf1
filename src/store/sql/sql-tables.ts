/**
 * The tables of the SQL store, as Kysely sees them. Every SCIM table is keyed by organization
 * first (DESIGN §3: nothing crosses tenants); the analytics tables, whose ids are global UUIDs,
 * carry `org_id` for scoping and deletes. Every name carries the `scimkit_` prefix so the store
 * can share a database with the host application. The DDL, with its indexes, is in
 * `migrations/0001-initial-tables.ts` (SCIM) and `migrations/0003-analytics-tables.ts` (the
 * analytics interface, spec §4.6).
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
  /** Copy of `attributes.externalId`, indexed for `externalId eq` (DESIGN §3 hot lookups). */
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
 * Group membership as rows (DESIGN §3): a delta is an insert or a delete, and reading a group
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
}

/** Applied migrations, one row each. */
export interface MigrationsTable {
  readonly version: number;
  readonly name: string;
  /** ISO 8601 time the migration was applied. */
  readonly applied_at: string;
}

/** An organization of the analytics interface (spec §4.6). Primary key `id`. */
export interface OrganizationsTable {
  readonly id: string;
  readonly name: string;
  /** `active` or `suspended`. */
  readonly status: string;
  readonly created_at: string;
  readonly updated_at: string;
}

/** An admin user of the analytics interface. Primary key `id`; `email` is unique. */
export interface AdminUsersTable {
  readonly id: string;
  /** Lower-cased by the caller. */
  readonly email: string;
  /** `admin` or `viewer`. */
  readonly role: string;
  /** `invited`, `active` or `disabled`. */
  readonly status: string;
  readonly invited_at: string;
  /** Set while an invitation is pending, cleared when it is accepted. */
  readonly invitation_expires_at: string | null;
  readonly activated_at: string | null;
  readonly updated_at: string;
}

/** Which organizations an admin user may see. Primary key `(admin_user_id, org_id)`; cascades with the user. */
export interface AdminUserOrganizationsTable {
  readonly admin_user_id: string;
  readonly org_id: string;
}

/** A single-use invitation code, as its SHA-256 digest only. Primary key `code_hash`; cascades with the user. */
export interface InvitationsTable {
  readonly code_hash: string;
  readonly admin_user_id: string;
  readonly created_at: string;
  readonly expires_at: string;
  /** When it was accepted; a consumed code finds nothing. */
  readonly consumed_at: string | null;
}

/** An analytics API key, as its SHA-256 digest only. Primary key `id`; `hash` is unique. */
export interface ApiKeysTable {
  readonly id: string;
  readonly hash: string;
  /** `operator` or `admin`. */
  readonly subject_kind: string;
  /** The admin user of an `admin` key; `null` for an operator key. Cascades with the user. */
  readonly admin_user_id: string | null;
  readonly created_at: string;
}

/** A training campaign. Primary key `id`, listed by `(org_id, id)`. */
export interface CampaignsTable {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly starts_at: string;
  /** An unfinished enrolment past it is overdue; `null`: never overdue. */
  readonly due_at: string | null;
  readonly created_at: string;
}

/** One learner's enrolment in one campaign. Primary key `(campaign_id, user_id)`; cascades with the campaign. */
export interface EnrolmentsTable {
  readonly campaign_id: string;
  /** The learner's SCIM id in `scimkit_resources`. */
  readonly user_id: string;
  /** The campaign's organization. */
  readonly org_id: string;
  /** `not_started`, `in_progress` or `completed`. */
  readonly status: string;
  /** `double precision`, as `score`: both drivers return a JavaScript number. */
  readonly progress_percent: number;
  readonly score: number | null;
  readonly enrolled_at: string;
  readonly started_at: string | null;
  readonly completed_at: string | null;
  readonly updated_at: string;
}

/** A phishing attack simulation. Primary key `id`, listed by `(org_id, id)`. */
export interface SimulationsTable {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly template: string | null;
  readonly launched_at: string;
  readonly created_at: string;
}

/**
 * One recipient of a simulation, with the first time of each event type (`null`: never).
 * Primary key `(simulation_id, user_id)`; cascades with the simulation.
 */
export interface SimulationRecipientsTable {
  readonly simulation_id: string;
  readonly user_id: string;
  readonly org_id: string;
  readonly sent_at: string | null;
  readonly delivered_at: string | null;
  readonly opened_at: string | null;
  readonly clicked_at: string | null;
  readonly submitted_data_at: string | null;
  readonly reported_at: string | null;
}

/** A learner's comment on a campaign or a simulation. Primary key `id`. */
export interface FeedbackTable {
  readonly id: string;
  readonly org_id: string;
  /** `campaign` or `simulation`. */
  readonly subject_kind: string;
  readonly subject_id: string;
  readonly user_id: string;
  readonly rating: number | null;
  readonly comment: string;
  readonly created_at: string;
}

/** An asynchronous operation (a bulk report). Primary key `id`, visible through `org_id`. */
export interface OperationsTable {
  readonly id: string;
  readonly org_id: string;
  readonly kind: string;
  readonly subject_id: string;
  /** `queued`, `running`, `succeeded` or `failed`. */
  readonly status: string;
  readonly progress_done: CounterColumn;
  readonly progress_total: CounterColumn | null;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly error: string | null;
}

/** One row of an operation's report. Primary key `(operation_id, seq)`; cascades with the operation. */
export interface ReportRowsTable {
  readonly operation_id: string;
  /** 1, 2, 3, … in append order. */
  readonly seq: CounterColumn;
  /** The row as JSON text (key order kept: the keys are the CSV columns). */
  readonly row: string;
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
  /** `request` or `bulk`. */
  readonly via: string;
  readonly bulk_id: string | null;
}

/** The store's database, for `Kysely<SqlStoreDatabase>`. */
export interface SqlStoreDatabase {
  readonly scimkit_resources: ResourcesTable;
  readonly scimkit_unique_keys: UniqueKeysTable;
  readonly scimkit_members: MembersTable;
  readonly scimkit_tokens: TokensTable;
  readonly scimkit_migrations: MigrationsTable;
  readonly scimkit_organizations: OrganizationsTable;
  readonly scimkit_admin_users: AdminUsersTable;
  readonly scimkit_admin_user_organizations: AdminUserOrganizationsTable;
  readonly scimkit_invitations: InvitationsTable;
  readonly scimkit_api_keys: ApiKeysTable;
  readonly scimkit_campaigns: CampaignsTable;
  readonly scimkit_enrolments: EnrolmentsTable;
  readonly scimkit_simulations: SimulationsTable;
  readonly scimkit_simulation_recipients: SimulationRecipientsTable;
  readonly scimkit_feedback: FeedbackTable;
  readonly scimkit_operations: OperationsTable;
  readonly scimkit_report_rows: ReportRowsTable;
  readonly scimkit_audit: AuditTable;
}
