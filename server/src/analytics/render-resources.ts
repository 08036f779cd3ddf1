/**
 * The representations the analytics interface sends: the store's records with the interface's
 * field names (`organizationId` rather than the store's `orgId`), optional fields left out
 * rather than null, and nothing a client should not see (digests, codes).
 */
import type {
  AdminUser,
  Campaign,
  EnrolmentView,
  FeedbackComment,
  Learner,
  Operation,
  Organization,
  OrgScope,
  SimulationRecipientView,
} from "./analytics-store.js";

type Body = Record<string, unknown>;

/** Copies the listed optional fields that are set. */
function optional(source: object, names: readonly string[]): Body {
  const values = source as Readonly<Record<string, unknown>>;
  const result: Body = {};
  for (const name of names) if (values[name] !== undefined) result[name] = values[name];
  return result;
}

/** An organization as `Organization` in the OpenAPI document. */
export function renderOrganization(organization: Organization): Body {
  const { id, name, status, createdAt, updatedAt, compatibility, existingUsers, parentId } = organization;
  return {
    id,
    name,
    status,
    ...(compatibility === undefined ? {} : { compatibility }),
    ...(existingUsers === undefined ? {} : { existingUsers }),
    ...(parentId === undefined ? {} : { parentId }),
    createdAt,
    updatedAt,
  };
}

/**
 * An admin user as `scope` may see it; never its invitation code digest nor its keys. Its
 * organizations outside `scope` are left out (issue 19): an admin seeing a colleague learns
 * nothing about organizations that are not its own, not even their ids.
 */
export function renderAdminUser(user: AdminUser, scope: OrgScope): Body {
  const { id, email, role, status, invitedAt, updatedAt } = user;
  const visible = "all" in scope ? (_id: string) => true : (orgId: string) => scope.orgIds.includes(orgId);
  const subtreeOrganizationIds = (user.subtreeOrganizationIds ?? []).filter(visible);
  return {
    id,
    email,
    role,
    organizationIds: user.organizationIds.filter(visible),
    ...(subtreeOrganizationIds.length === 0 ? {} : { subtreeOrganizationIds }),
    status,
    invitedAt,
    ...optional(user, ["invitationExpiresAt", "activatedAt"]),
    updatedAt,
  };
}

/** A learner as `User`: `organizationId` for the store's `orgId`. */
export function renderUser(learner: Learner): Body {
  const { id, userName, active, createdAt, updatedAt } = learner;
  return {
    id,
    organizationId: learner.orgId,
    userName,
    ...optional(learner, ["displayName", "email"]),
    active,
    ...optional(learner, ["department"]),
    createdAt,
    updatedAt,
  };
}

/** A campaign as `Campaign`. */
export function renderCampaign(campaign: Campaign): Body {
  const { id, name, startsAt, createdAt } = campaign;
  return {
    id,
    organizationId: campaign.orgId,
    name,
    ...optional(campaign, ["description"]),
    startsAt,
    ...optional(campaign, ["dueAt"]),
    createdAt,
  };
}

/** An enrolment as `CampaignUser`, with its learner while it exists. */
export function renderCampaignUser(enrolment: EnrolmentView): Body {
  const { campaignId, userId, status, progressPercent, enrolledAt, updatedAt, overdue } = enrolment;
  return {
    campaignId,
    userId,
    ...(enrolment.learner ? { user: renderUser(enrolment.learner) } : {}),
    status,
    progressPercent,
    ...optional(enrolment, ["score"]),
    enrolledAt,
    ...optional(enrolment, ["startedAt", "completedAt"]),
    updatedAt,
    overdue,
  };
}

/** A recipient as `SimulationUser`: only the steps it took. */
export function renderSimulationUser(recipient: SimulationRecipientView): Body {
  return {
    simulationId: recipient.simulationId,
    userId: recipient.userId,
    ...(recipient.learner ? { user: renderUser(recipient.learner) } : {}),
    ...optional(recipient, ["sentAt", "deliveredAt", "openedAt", "clickedAt", "submittedDataAt", "reportedAt"]),
  };
}

/** A feedback comment as `FeedbackComment`. */
export function renderFeedback(comment: FeedbackComment): Body {
  const { id, userId, comment: text, createdAt } = comment;
  return {
    id,
    subject: { kind: comment.subject.kind, id: comment.subject.id },
    userId,
    ...optional(comment, ["rating"]),
    comment: text,
    createdAt,
  };
}

/** An operation with its links; the result links only once it has succeeded. */
export function renderOperation(operation: Operation, baseUrl: string): Body {
  const self = `${baseUrl}/operations/${operation.id}`;
  const progress =
    operation.progress.total === undefined
      ? { done: operation.progress.done }
      : { done: operation.progress.done, total: operation.progress.total };
  return {
    id: operation.id,
    kind: operation.kind,
    organizationId: operation.orgId,
    subjectId: operation.subjectId,
    status: operation.status,
    progress,
    createdAt: operation.createdAt,
    ...optional(operation, ["startedAt", "finishedAt", "error"]),
    links: operation.status === "succeeded" ? { self, result: `${self}/result`, resultCsv: `${self}/result?format=csv` } : { self },
  };
}
