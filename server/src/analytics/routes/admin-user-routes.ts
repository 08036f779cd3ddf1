/**
 * Admin users (spec §4.6) and their invitations: list, get, invite (a single-use code delivered
 * through the host's hook, never in a response), change, delete — and accepting an invitation,
 * which turns the code into the admin user's API key (our addition).
 */
import { randomBytes } from "node:crypto";
import { v7 } from "uuid";
import { hashToken } from "scimkit";
import {
  conflict,
  forbidden,
  invalidRequest,
  notFound,
  notImplemented,
  type AnalyticsProblem,
  type ProblemFieldError,
} from "../analytics-problem.js";
import type { AnalyticsCall, AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type {
  AcceptedOffer,
  AdminRole,
  AdminUser,
  AdminUserStatus,
  AdminUserStore,
  GrantOptions,
  InvitationOutcome,
  OrganizationStore,
  OrgScope,
} from "../analytics-store.js";
import { newApiKey } from "../api-keys.js";
import { callerScope } from "../caller-scope.js";
import { isGrantBeyondScopeError } from "../grants-beyond.js";
import { renderAdminUser } from "../render-resources.js";
import { sendJson, sendNoContent } from "../send-json.js";

type AdminUserHandlers = Pick<
  AnalyticsHandlers,
  "listAdminUsers" | "getAdminUser" | "inviteAdminUser" | "updateAdminUser" | "deleteAdminUser" | "acceptInvitation"
>;

/** What the admin user handlers use: admin users, and organizations to check grants against. */
type AdminUserDependencies = AnalyticsDependencies<AdminUserStore & OrganizationStore>;

/** Random bytes in an invitation code's secret: 256 bits, 43 base64url characters. */
const CODE_BYTES = 32;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * An invitation code is `<adminUserId>.<secret>`: accepting stores the user's first API key in
 * the same step (`AnalyticsStore.acceptInvitation`), and the key must name its user, which only
 * the code can tell before the store has checked it. An offer's code names the offer, the id of
 * the admin user it becomes should its e-mail be no one's when accepted. Only the digest of the
 * whole code is stored.
 */
function invitationCode(adminUserId: string): string {
  return `${adminUserId}.${randomBytes(CODE_BYTES).toString("base64url")}`;
}

/** The admin user id a code names, if it has the shape of one of ours. */
function adminUserIdOf(code: string): string | undefined {
  const dot = code.indexOf(".");
  const id = dot === -1 ? "" : code.slice(0, dot);
  return UUID.test(id) ? id : undefined;
}

const noSuchAdminUser = (): AnalyticsProblem => notFound("There is no admin user with this id among those you may see.");

/**
 * The refusal of an invitation whose e-mail another write took at the same moment: it names no
 * one, as the invitation may have raced one the caller may not see.
 */
const emailTaken = (email: string): AnalyticsProblem =>
  conflict(
    `${email} cannot be invited: it already belongs to an admin user or a pending invitation. Ask the operator if it should look after your organizations.`,
  );

/** The refusal of an invitation whose e-mail is an admin user's or a pending invitation's the caller may see. */
const invitationTaken = (email: string, taken: AdminUser): AnalyticsProblem =>
  conflict(
    taken.status === "invited"
      ? `${email} is already invited (until ${taken.invitationExpiresAt ?? "?"}); to invite again, delete admin user ${taken.id} first.`
      : `${email} is already an admin user (${taken.id}); change its organizations instead.`,
  );

function isConflict(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { readonly code?: unknown }).code === "conflict";
}

/** Sorted and without repeats, as `AdminUser.organizationIds` is kept. */
function normalizedIds(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort();
}

/**
 * 400 naming each organization the caller may not see: one it may not see and one that does
 * not exist get the same answer, so the check reveals nothing.
 */
async function requireVisible(dependencies: AdminUserDependencies, scope: OrgScope, ids: readonly string[]): Promise<void> {
  const errors: ProblemFieldError[] = [];
  for (const [index, id] of ids.entries()) {
    if ((await dependencies.store.getOrganization(scope, id)) === undefined) {
      errors.push({ field: `/organizationIds/${index}`, message: "is not an organization you may see" });
    }
  }
  if (errors.length > 0) throw invalidRequest(errors);
}

/**
 * The subtree grants of a request: sorted, each one of the granted `organizationIds`. 400 naming
 * each that is not. Whether the caller may give them is the store's to decide, inside its write.
 */
function checkedSubtreeIds(subtreeIds: readonly string[] | undefined, organizationIds: readonly string[]): string[] | undefined {
  if (subtreeIds === undefined) return undefined;
  const errors: ProblemFieldError[] = [];
  for (const [index, id] of subtreeIds.entries()) {
    if (!organizationIds.includes(id)) {
      errors.push({ field: `/subtreeOrganizationIds/${index}`, message: "is not one of the admin user's organizationIds" });
    }
  }
  if (errors.length > 0) throw invalidRequest(errors);
  return normalizedIds(subtreeIds);
}

/**
 * The admin caller whose grants bound those it gives (issue 27, item 4): an admin — itself
 * included — never grants an organization outside its scope nor a subtree it does not hold.
 */
function grantOptions(call: Pick<AnalyticsCall, "caller">): GrantOptions {
  return call.caller?.kind === "admin" ? { grantedBy: call.caller.adminUser.id } : {};
}

/**
 * `work`, with the store's refusal of a grant beyond the caller's own as a 400 naming each grant
 * in the request's sorted lists (`organizationIds`, `subtreeOrganizationIds`).
 */
async function grantChecked<T>(organizationIds: readonly string[], subtreeIds: readonly string[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isGrantBeyondScopeError(error)) throw error;
    throw invalidRequest(
      error.beyond.map(({ kind, orgId }) =>
        kind === "subtree"
          ? {
              field: `/subtreeOrganizationIds/${Math.max(subtreeIds.indexOf(orgId), 0)}`,
              message:
                "is not within a subtree you hold: you may grant a subtree only of an organization at or below one of your own subtree grants",
            }
          : { field: `/organizationIds/${Math.max(organizationIds.indexOf(orgId), 0)}`, message: "is not an organization you may see" },
      ),
    );
  }
}

/**
 * An admin (role `admin`) manages only admin users all of whose organizations — subtrees
 * included — are within its own scope (issue 6, issue 17), so it can never act on someone who
 * also looks after an organization it cannot see.
 */
async function requireManageable(dependencies: AdminUserDependencies, call: AnalyticsCall, target: AdminUser): Promise<void> {
  const { caller, scope } = call;
  if (caller?.kind !== "admin" || "all" in scope) return;
  const own = new Set(scope.orgIds);
  const theirs = await callerScope({ kind: "admin", keyId: "", adminUser: target }, dependencies.store);
  if (!("all" in theirs) && !theirs.orgIds.every((id) => own.has(id))) {
    throw forbidden(
      "This admin user also looks after organizations that are not yours; ask the operator or an admin of those organizations.",
    );
  }
}

async function visibleAdminUser(dependencies: AdminUserDependencies, call: AnalyticsCall): Promise<AdminUser> {
  const user = await dependencies.store.getAdminUser(call.scope, call.params["id"] ?? "");
  if (user === undefined) throw noSuchAdminUser();
  return user;
}

/**
 * `accept`, with the store's refusals of an offer as 409s saying what the person can do: an admin
 * user has one role, and no one gives grants beyond those it holds when they are taken.
 */
async function offerAccepted(accept: () => Promise<AcceptedOffer | undefined>): Promise<AcceptedOffer | undefined> {
  try {
    return await accept();
  } catch (error) {
    if (isConflict(error)) {
      throw conflict(
        "This invitation offers the role viewer, and your admin user's role is admin, for all its organizations. Ask whoever invited you to invite you as an admin, or the operator.",
      );
    }
    if (isGrantBeyondScopeError(error)) {
      throw conflict("This invitation offers organizations that whoever invited you no longer looks after. Ask for a new invitation.");
    }
    throw error;
  }
}

/** The handlers of the admin-user and invitation operations. */
export function adminUserHandlers(dependencies: AdminUserDependencies): AdminUserHandlers {
  const { store, now } = dependencies;
  return {
    async listAdminUsers(call) {
      const status = call.query["status"] as AdminUserStatus | undefined;
      const role = call.query["role"] as AdminRole | undefined;
      const orgId = call.query["organizationId"] as string | undefined;
      const page = await store.listAdminUsers(call.scope, call.page(), {
        ...(status === undefined ? {} : { status }),
        ...(role === undefined ? {} : { role }),
        ...(orgId === undefined ? {} : { orgId }),
      });
      call.sendPage(page, (user) => renderAdminUser(user, call.scope));
    },

    async getAdminUser(call) {
      sendJson(call.response, 200, renderAdminUser(await visibleAdminUser(dependencies, call), call.scope));
    },

    async inviteAdminUser(call) {
      const { response, body, scope, baseUrl } = call;
      const onInvitation = dependencies.onInvitation;
      if (onInvitation === undefined) {
        throw notImplemented(
          "This service cannot deliver invitations: its host has no delivery for them (the analytics router's onInvitation hook; on the scimkit host, SCIMKIT_LOG_INVITATION_CODES=true writes codes to the log, for demos only).",
        );
      }
      const input = body as {
        readonly email: string;
        readonly role: AdminRole;
        readonly organizationIds: readonly string[];
        readonly subtreeOrganizationIds?: readonly string[];
      };
      const email = input.email.toLowerCase();
      const organizationIds = normalizedIds(input.organizationIds);
      await requireVisible(dependencies, scope, organizationIds);
      const subtreeOrganizationIds = checkedSubtreeIds(input.subtreeOrganizationIds, organizationIds);
      const at = now();
      const expiresAt = new Date(at.getTime() + dependencies.invitationTtlMs).toISOString();
      const user: AdminUser = {
        id: v7(),
        email,
        role: input.role,
        organizationIds,
        ...(subtreeOrganizationIds === undefined || subtreeOrganizationIds.length === 0 ? {} : { subtreeOrganizationIds }),
        status: "invited",
        invitedAt: at.toISOString(),
        invitationExpiresAt: expiresAt,
        updatedAt: at.toISOString(),
      };
      const code = invitationCode(user.id);
      // Issue 27: an e-mail that is an admin user's the caller may not see is stored as an offer
      // to that admin user, in the same single write, and answered and delivered as any new
      // invitation, so neither the answer nor its time tells who looks after another customer.
      // Only an admin user or a pending invitation the caller could list anyway is named (409).
      let outcome: InvitationOutcome;
      try {
        outcome = await grantChecked(organizationIds, subtreeOrganizationIds ?? [], () =>
          store.inviteAdminUser(scope, user, { codeHash: hashToken(code), expiresAt }, grantOptions(call)),
        );
      } catch (error) {
        // Two invitations of one e-mail at once: the store's unique e-mail decides.
        if (isConflict(error)) throw emailTaken(email);
        throw error;
      }
      if ("taken" in outcome) throw invitationTaken(email, outcome.taken);
      try {
        await onInvitation({ adminUser: user, code, expiresAt });
      } catch (error) {
        // Undelivered, the code reaches nobody and the e-mail would stay blocked as invited:
        // withdraw it (the admin user or the offer) so the request can simply be retried.
        await store.deleteAdminUser({ all: true }, user.id);
        throw error;
      }
      response.setHeader("Location", `${baseUrl}/admin-users/${user.id}`);
      sendJson(response, 201, renderAdminUser(user, scope));
    },

    async updateAdminUser(call) {
      const change = call.body as {
        readonly role?: AdminRole;
        readonly organizationIds?: readonly string[];
        readonly subtreeOrganizationIds?: readonly string[];
        readonly status?: "active" | "disabled";
      };
      const target = await visibleAdminUser(dependencies, call);
      await requireManageable(dependencies, call, target);
      const organizationIds = change.organizationIds === undefined ? undefined : normalizedIds(change.organizationIds);
      if (organizationIds !== undefined) await requireVisible(dependencies, call.scope, organizationIds);
      const subtreeOrganizationIds = checkedSubtreeIds(change.subtreeOrganizationIds, organizationIds ?? target.organizationIds);
      if (change.status !== undefined && target.status === "invited") {
        throw conflict(
          "This admin user is still invited: it becomes active by accepting its invitation, and an invitation is withdrawn by deleting the admin user.",
        );
      }
      const updated = await grantChecked(organizationIds ?? [], subtreeOrganizationIds ?? [], () =>
        store.updateAdminUser(
          call.scope,
          target.id,
          {
            ...(change.role === undefined ? {} : { role: change.role }),
            ...(organizationIds === undefined ? {} : { organizationIds }),
            ...(subtreeOrganizationIds === undefined ? {} : { subtreeOrganizationIds }),
            ...(change.status === undefined ? {} : { status: change.status }),
            updatedAt: now().toISOString(),
          },
          grantOptions(call),
        ),
      );
      if (updated === undefined) throw noSuchAdminUser();
      sendJson(call.response, 200, renderAdminUser(updated, call.scope));
    },

    async deleteAdminUser(call) {
      const target = await visibleAdminUser(dependencies, call);
      await requireManageable(dependencies, call, target);
      if (!(await store.deleteAdminUser(call.scope, target.id))) throw noSuchAdminUser();
      sendNoContent(call.response);
    },

    async acceptInvitation({ response, body }) {
      const { code } = body as { readonly code: string };
      const refused = (): AnalyticsProblem =>
        notFound("No pending invitation has this code: it may have been used already or have expired. Ask for a new invitation.");
      const adminUserId = adminUserIdOf(code);
      if (adminUserId === undefined) throw refused();
      const at = now().toISOString();
      const issued = newApiKey({ kind: "admin", adminUserId }, at);
      const codeHash = hashToken(code);
      const user = await store.acceptInvitation(codeHash, at, issued.record);
      const accepted =
        user === undefined
          ? await offerAccepted(() => store.acceptInvitationOffer(codeHash, at, issued.record))
          : { adminUser: user, keyStored: true };
      if (accepted === undefined) throw refused();
      // The digest covers the id part too, so a code opens only the invitation it was made for;
      // this guards against a store that would answer for another one.
      if (accepted.keyStored && accepted.adminUser.id !== adminUserId) {
        throw new Error("analytics: the store accepted an invitation of another admin user than the code names");
      }
      response.setHeader("Cache-Control", "no-store");
      // An offer taken by an admin user that has keys adds to what those keys see: no new key.
      sendJson(response, 200, {
        adminUser: renderAdminUser(accepted.adminUser, { all: true }),
        ...(accepted.keyStored ? { apiKey: issued.key } : {}),
      });
    },
  };
}
