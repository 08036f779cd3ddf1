/**
 * `@scimkit/server`: the analytics interface of a provisioning service (spec §4.6) — the
 * router, its stores (memory and SQL), API keys, the recorder a host feeds training data through,
 * and the SCIM token wrapper that makes suspension take effect.
 */
export { createAnalyticsRouter } from "./create-analytics-router.js";
export type { AnalyticsRouterOptions, Invitation, StaticTokenDescription } from "./analytics-router-options.js";
export { openApiDocument } from "./definitions/openapi-document.js";
export { organizationScimSettings } from "./organization-scim-settings.js";
export type { OrganizationScimDefaults, OrganizationScimSettings } from "./organization-scim-settings.js";
export { renderOrganization } from "./render-resources.js";
export { renderIssuedToken, renderStaticToken } from "./render-scim-token.js";
export type { RenderedScimToken } from "./render-scim-token.js";
export { API_KEY_PREFIX, ensureOperatorKey, issueApiKey, newApiKey, verifyApiKey } from "./api-keys.js";
export type { ApiKeyCaller, IssuedApiKey } from "./api-keys.js";
export { AnalyticsProblem, ProblemType, isAnalyticsProblem } from "./analytics-problem.js";
export type { ProblemDetails, ProblemFieldError } from "./analytics-problem.js";
export { memoryAnalyticsStore } from "./memory/memory-analytics-store.js";
export type { MemoryAnalyticsStoreOptions } from "./memory/memory-analytics-store.js";
export { sqlAnalyticsStore } from "./sql/sql-analytics-store.js";
export type { SqlAnalyticsStore, SqlAnalyticsStoreOptions } from "./sql/sql-analytics-store.js";
export { analyticsMigrations, ANALYTICS_MIGRATIONS } from "./sql/migrations/analytics-migrations.js";
export type { AnalyticsDatabase, AnalyticsTables } from "./sql/analytics-tables.js";
export { analyticsRecorder } from "./analytics-recorder.js";
export type {
  AnalyticsRecorder,
  AnalyticsRecorderOptions,
  CampaignInput,
  FeedbackInput,
  ProgressInput,
  SimulationInput,
  TimeInput,
} from "./analytics-recorder.js";
export type { AnalyticsAuditEntry, AnalyticsAuditOperation } from "./analytics-audit-entry.js";
export { activeOrganizationsOnly } from "./active-organizations-only.js";
export { MAX_TOTALS_EXCEPTIONS } from "./organization-store.js";
export { MAX_ORGANIZATION_DEPTH, describeTreeRefusal, isOrganizationTreeError, organizationTreeError } from "./organization-tree-error.js";
export type { OrganizationTreeError, OrganizationTreeRefusal } from "./organization-tree-error.js";
export { grantsBeyond, isGrantBeyondScopeError, refuseGrantsBeyond } from "./grants-beyond.js";
export type { GrantBeyond, GrantBeyondScopeError, Grants } from "./grants-beyond.js";
export type {
  AcceptedOffer,
  AdminRole,
  AdminUser,
  AdminUserStore,
  GrantOptions,
  AdminUserStatus,
  AnalyticsStore,
  AttackSimulation,
  Campaign,
  CampaignStore,
  CampaignSummary,
  CompletionTimeline,
  Enrolment,
  EnrolmentFilter,
  EnrolmentStatus,
  EnrolmentView,
  FeedbackComment,
  FeedbackStore,
  InvitationOutcome,
  KeySubject,
  Learner,
  LearnerFilter,
  LearnerStore,
  Operation,
  OperationStatus,
  OperationStore,
  OperationUpdate,
  OperationClaim,
  OrgScope,
  Organization,
  OrganizationChange,
  OrganizationFigures,
  OrganizationStatus,
  OrganizationStore,
  OrganizationTotals,
  Page,
  PageRequest,
  RecipientFilter,
  RegionDirectoryEntry,
  RegionDirectoryStore,
  ReportAdmission,
  ReportRow,
  ReportStart,
  SetupIdentityProvider,
  SetupLink,
  SetupLinkRefusal,
  SetupLinkStore,
  SimulationEventType,
  SimulationRecipient,
  SimulationRecipientView,
  SimulationStore,
  SimulationSummary,
  TreeSummary,
  StoredApiKey,
} from "./analytics-store.js";
export type { AnalyticsDirectory, DirectoryGroup, DirectoryMember, DirectoryUser, DirectoryUserDetail } from "./analytics-directory.js";
export { CHOSEN_ORGANIZATION_ID_PATTERN } from "./definitions/analytics-schemas.js";
export type { AnalyticsRouter } from "./analytics-router.js";
export type { ReportOptions } from "./report-options.js";
export { REGION_NAME_PATTERN } from "./regions-view.js";
export { isRegionMoveRefusal, MOVE_RETRY_AFTER_SECONDS } from "./region-moves-view.js";
export type { RegionMove, RegionMoveRefusal, RegionMoves, RegionMoveStep } from "./region-moves-view.js";
export type { MisdirectedRequests, RegionOrganization, RegionState, RegionsReport, RegionsView } from "./regions-view.js";
export type { RegionAggregates, RegionSummaryEntry, RegionsSummary } from "./regions-summary.js";
export type { ReportWorker } from "./report-worker.js";
export { renderEventReceiver } from "./render-event-receiver.js";
export type { RenderedEventReceiver } from "./render-event-receiver.js";
export { eventReceiverInputErrors, fieldOfInvalidReceiver } from "./event-receiver-input.js";
export type { EventReceiverInputError } from "./event-receiver-input.js";
