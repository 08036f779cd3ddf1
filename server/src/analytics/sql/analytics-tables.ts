/**
 * The tables of the analytics interface (spec §4.6), as Kysely sees them, beside the SCIM tables
 * of the SQL store they share a database with. Ids are global UUIDs; every organization's row
 * carries `org_id` for scoping and deletes. Every name carries the `scimkit_` prefix, as the SCIM
 * tables do. The DDL, with its indexes, is in `migrations/0001-analytics-tables.ts`, run in the
 * `analytics` namespace of the store's migration runner.
 */
import type { ColumnType, Generated } from "kysely";
import type { CounterColumn, SqlStoreDatabase } from "scimkit/sql";

/** An organization of the analytics interface (spec §4.6). Primary key `id`. */
export interface OrganizationsTable {
  readonly id: string;
  readonly name: string;
  /** `active` or `suspended`. */
  readonly status: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** `Organization.compatibility`; null: the default (analytics migration 2). */
  readonly compatibility: string | null;
  /** `Organization.existingUsers`; null: the default (analytics migration 2). */
  readonly existing_users: string | null;
  /** `Organization.parentId`; null: a root (analytics migration 3). */
  readonly parent_id: string | null;
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
  /** 1: granted with its subtree (`AdminUser.subtreeOrganizationIds`), 0: alone (analytics migration 3). */
  readonly subtree: Generated<number>;
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

/**
 * A pending invitation offer (analytics version 5, issue 27): an invitation whose e-mail is an
 * admin user's the inviter may not see, listed as an `invited` admin user until accepted or
 * withdrawn. Primary key `id`.
 */
export interface InvitationOffersTable {
  readonly id: string;
  /** Lower-cased; an admin user's (when offered). */
  readonly email: string;
  /** `admin` or `viewer`. */
  readonly role: string;
  /** The admin user whose grants bound the offer's; null: the operator. */
  readonly offered_by: string | null;
  readonly invited_at: string;
  /** When its code stops working. */
  readonly expires_at: string;
  readonly updated_at: string;
}

/** The organizations an offer grants. Primary key `(offer_id, org_id)`; cascades with the offer. */
export interface InvitationOfferOrganizationsTable {
  readonly offer_id: string;
  readonly org_id: string;
  /** 1: offered with its subtree, 0: alone. */
  readonly subtree: Generated<number>;
}

/** An offer's single-use code, as its SHA-256 digest only. Primary key `code_hash`; cascades with the offer. */
export interface InvitationOfferCodesTable {
  readonly code_hash: string;
  readonly offer_id: string;
  readonly created_at: string;
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
  /** Digest of the request (analytics version 4); null: never reused. */
  readonly request_key: string | null;
  /** ISO 8601 expiry (version 4); null: kept. */
  readonly expires_at: string | null;
  /** The worker whose claim the job runs under (version 4). */
  readonly owner_id: string | null;
  /** That worker's last heartbeat (version 4). */
  readonly heartbeat_at: string | null;
  /** Claims so far (version 4). */
  readonly attempts: ColumnType<number, number | undefined, number>;
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
 * One organization homed in another region, as that region's directory feed last said (analytics
 * version 6, issue 30): the replica a host answers 421 from. Primary key `org_id`; not an
 * organization of this database, so no foreign key and no organization delete reach it.
 */
/** `scimkit_setup_links` (analytics version 8): one-time links to an organization's setup (issue 31). */
export interface SetupLinksTable {
  readonly org_id: string;
  readonly id: string;
  /** `hashToken(code)`: the link's code is never stored. */
  readonly code_hash: string;
  /** `hashToken(session)` once the code was exchanged; null before. */
  readonly session_hash: string | null;
  readonly identity_provider: string | null;
  readonly created_by: string | null;
  readonly created_at: string;
  readonly expires_at: string;
  readonly used_at: string | null;
  readonly revoked_at: string | null;
  readonly token_id: string | null;
}

/** `scimkit_region_moves` (analytics version 7): this host's side of each move of an organization between regions. */
export interface RegionMovesTable {
  readonly org_id: string;
  readonly move_id: string;
  /** `source` (moving out of this region) or `target` (moving in). */
  readonly side: string;
  /** The other region of the move. */
  readonly peer_region: string;
  /** `RegionMoveStep`. */
  readonly step: string;
  readonly started_at: string;
  readonly updated_at: string;
  /** Who asked (an API key id, or `cli`); null on the target. */
  readonly requested_by: string | null;
  /** Why the last attempt of the current step failed; null once it passed. */
  readonly last_error: string | null;
}

export interface RegionDirectoryTable {
  readonly org_id: string;
  readonly name: string;
  /** `RegionDirectoryEntry.parentId`; null: a root. */
  readonly parent_id: string | null;
  /** The region whose feed listed it: a sync replaces that region's rows. */
  readonly home_region: string;
  /** `active` or `suspended`. */
  readonly status: string;
  /** As the home region reported it. */
  readonly updated_at: string;
}

/** The analytics tables, for `Kysely<AnalyticsDatabase>` (a type, not an interface: Kysely's `withTables` wants an index signature). */
export type AnalyticsTables = {
  readonly scimkit_organizations: OrganizationsTable;
  readonly scimkit_admin_users: AdminUsersTable;
  readonly scimkit_admin_user_organizations: AdminUserOrganizationsTable;
  readonly scimkit_invitations: InvitationsTable;
  readonly scimkit_invitation_offers: InvitationOffersTable;
  readonly scimkit_invitation_offer_organizations: InvitationOfferOrganizationsTable;
  readonly scimkit_invitation_offer_codes: InvitationOfferCodesTable;
  readonly scimkit_api_keys: ApiKeysTable;
  readonly scimkit_campaigns: CampaignsTable;
  readonly scimkit_enrolments: EnrolmentsTable;
  readonly scimkit_simulations: SimulationsTable;
  readonly scimkit_simulation_recipients: SimulationRecipientsTable;
  readonly scimkit_feedback: FeedbackTable;
  readonly scimkit_operations: OperationsTable;
  readonly scimkit_report_rows: ReportRowsTable;
  readonly scimkit_region_directory: RegionDirectoryTable;
  readonly scimkit_region_moves: RegionMovesTable;
  readonly scimkit_setup_links: SetupLinksTable;
};

/** The SQL store's database with the analytics tables: what the analytics queries run on. */
export type AnalyticsDatabase = SqlStoreDatabase & AnalyticsTables;
