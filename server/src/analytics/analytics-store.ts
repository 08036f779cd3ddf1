/**
 * The storage contract of the analytics interface (spec §4.6): organizations, admin users and
 * their API keys, the learners provisioned through SCIM, training campaigns, attack simulations,
 * asynchronous report operations, and the replica of other regions' directories (issue 30).
 * scimkit ships `memoryAnalyticsStore` and `sqlAnalyticsStore`; both pass
 * `describeAnalyticsStoreConformance`.
 *
 * As with `ResourceStore`, the core normalizes and the store translates: ids (UUID v7) and times
 * (ISO 8601, UTC, millisecond precision) are chosen by the caller, inputs are already validated,
 * and every read is scoped by the organizations the caller may see (`OrgScope`), so a store never
 * decides who may see what — it only never returns anything outside the scope it is given.
 *
 * The contract is written by area, one interface each (issue 28): a route or a job takes the part
 * it needs, and `AnalyticsStore` is all of them. The records of each area are defined with it and
 * re-exported here.
 */
import type { AdminUserStore } from "./admin-user-store.js";
import type { AnalyticsDirectory } from "./analytics-directory.js";
import type { CampaignStore } from "./campaign-store.js";
import type { FeedbackStore } from "./feedback-store.js";
import type { LearnerStore } from "./learner-store.js";
import type { OperationStore } from "./operation-store.js";
import type { OrganizationStore } from "./organization-store.js";
import type { RegionDirectoryStore } from "./region-directory-store.js";
import type { SetupLinkStore } from "./setup-link-store.js";
import type { SimulationStore } from "./simulation-store.js";

export type {
  AcceptedOffer,
  AdminRole,
  AdminUser,
  AdminUserStatus,
  AdminUserStore,
  GrantOptions,
  InvitationOutcome,
  KeySubject,
  StoredApiKey,
} from "./admin-user-store.js";
export type {
  Campaign,
  CampaignStore,
  CampaignSummary,
  CompletionTimeline,
  Enrolment,
  EnrolmentFilter,
  EnrolmentStatus,
  EnrolmentView,
} from "./campaign-store.js";
export type { FeedbackComment, FeedbackStore } from "./feedback-store.js";
export type { Learner, LearnerFilter, LearnerStore } from "./learner-store.js";
export type {
  Operation,
  OperationClaim,
  OperationStatus,
  OperationStore,
  OperationUpdate,
  ReportAdmission,
  ReportJobStore,
  ReportRow,
  ReportStart,
} from "./operation-store.js";
export type { OrgScope } from "./org-scope.js";
export type {
  Organization,
  OrganizationChange,
  OrganizationFigures,
  OrganizationStatus,
  OrganizationStore,
  OrganizationTotals,
  TreeSummary,
} from "./organization-store.js";
export type { Page, PageRequest } from "./page-request.js";
export type { RegionDirectoryEntry, RegionDirectoryStore } from "./region-directory-store.js";
export type { SetupIdentityProvider, SetupLink, SetupLinkRefusal, SetupLinkStore } from "./setup-link-store.js";
export type {
  AttackSimulation,
  RecipientFilter,
  SimulationEventType,
  SimulationRecipient,
  SimulationRecipientView,
  SimulationStore,
  SimulationSummary,
} from "./simulation-store.js";

/**
 * The analytics persistence contract: every area's. Every method resolves once its change is
 * visible to every later call from any process sharing the storage. `undefined`/`false` mean "no
 * such thing in scope" — the HTTP layer renders both the same 404, so another organization's data
 * and nonexistent data are indistinguishable.
 */
export interface AnalyticsStore
  extends OrganizationStore,
    AdminUserStore,
    LearnerStore,
    AnalyticsDirectory,
    CampaignStore,
    SimulationStore,
    FeedbackStore,
    OperationStore,
    RegionDirectoryStore,
    SetupLinkStore {}
