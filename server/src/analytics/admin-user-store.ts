/**
 * The admin users of the analytics store (spec §4.6): people who look after some organizations,
 * their invitations and the analytics API keys (the operator's and theirs). Part of `AnalyticsStore`.
 */
import type { OrgScope } from "./org-scope.js";
import type { Page, PageRequest } from "./page-request.js";

/** An admin user's role within its organizations: `admin` manages, `viewer` only reads. */
export type AdminRole = "admin" | "viewer";

/** `invited` until the invitation is accepted, then `active`; `disabled` keys stop working. */
export type AdminUserStatus = "invited" | "active" | "disabled";

/** A person who looks after some organizations through the analytics interface. */
export interface AdminUser {
  /** Service-assigned id (UUID v7). */
  readonly id: string;
  /**
   * E-mail address, stored lower-cased; unique among admin users. A pending invitation offer
   * (`inviteAdminUser`) shows as an `invited` admin user with the e-mail of the one it is for.
   */
  readonly email: string;
  /** `admin` or `viewer`. */
  readonly role: AdminRole;
  /** The organizations it may see, sorted; ids of existing organizations only. */
  readonly organizationIds: readonly string[];
  /**
   * Those of `organizationIds` granted with their whole subtree (issue 17), sorted: it also sees
   * and manages every descendant of each, present and future. Absent or empty: none.
   */
  readonly subtreeOrganizationIds?: readonly string[];
  /** `invited`, `active` or `disabled`. */
  readonly status: AdminUserStatus;
  /** ISO 8601 time of the (latest) invitation. */
  readonly invitedAt: string;
  /** ISO 8601 time the pending invitation expires; absent once accepted. */
  readonly invitationExpiresAt?: string;
  /** ISO 8601 time the invitation was accepted; absent while invited. */
  readonly activatedAt?: string;
  /** ISO 8601 time of the last change. */
  readonly updatedAt: string;
}

/** Who gives an admin user its grants, when that is bounded (issue 27, item 4). */
export interface GrantOptions {
  /**
   * The admin user whose own grants bound those given: no organization outside its scope, no
   * subtree outside its own subtree grants. Absent: unbounded (the operator).
   */
  readonly grantedBy?: string;
}

/**
 * What `AnalyticsStore.inviteAdminUser` did: stored the invitation — as a new admin user, or as an
 * offer to the admin user the e-mail belongs to — or found the e-mail taken by an admin user or a
 * pending offer the caller may see, and stored nothing.
 */
export type InvitationOutcome = { readonly stored: "admin-user" | "offer" } | { readonly taken: AdminUser };

/** An accepted invitation offer (`AnalyticsStore.acceptInvitationOffer`). */
export interface AcceptedOffer {
  /** The admin user the offer's grants are now part of. */
  readonly adminUser: AdminUser;
  /** Whether the key was stored: only when accepting made the admin user (its e-mail was no one's any more). */
  readonly keyStored: boolean;
}

/** Who an analytics API key speaks for. */
export type KeySubject = { readonly kind: "operator" } | { readonly kind: "admin"; readonly adminUserId: string };

/** An analytics API key as stored: never the key, only its SHA-256 digest. */
export interface StoredApiKey {
  /** Service-assigned id of the key, for audit and revocation. */
  readonly id: string;
  /** Whom it authenticates. */
  readonly subject: KeySubject;
  /** `hashToken(key)`: 64 lower-case hex characters, unique. */
  readonly hash: string;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
}

/**
 * Admin users, their invitations and the API keys in the analytics store. Every method resolves once its change is visible to every later call from any process sharing
 * the storage. `undefined`/`false` mean "no such thing in scope" — the HTTP layer renders both the
 * same 404, so another organization's data and nonexistent data are indistinguishable.
 */
export interface AdminUserStore {
  /**
   * Admin users with `id > after`, by id; with a scope of ids, only those sharing an organization
   * with it. Pending invitation offers (`inviteAdminUser`) are among them, as `invited` admin users.
   */
  listAdminUsers(
    scope: OrgScope,
    page: PageRequest,
    filter?: { readonly status?: AdminUserStatus; readonly role?: AdminRole; readonly orgId?: string },
  ): Promise<Page<AdminUser>>;
  /** The admin user or pending invitation offer, when in scope (as for the list). */
  getAdminUser(scope: OrgScope, id: string): Promise<AdminUser | undefined>;
  /** The admin user with this (lower-cased) e-mail, regardless of scope; never an offer. For uniqueness checks. */
  findAdminUserByEmail(email: string): Promise<AdminUser | undefined>;
  /**
   * Stores a new admin user with its pending invitation (the digest of the single-use code).
   * Rejects with an error whose `code` is `"conflict"` when the e-mail is taken, and — with
   * `options.grantedBy` — with a `GrantBeyondScopeError` when the user's grants lie beyond that
   * admin user's (`grantsBeyond`), checked inside the write on the tree as it is there.
   */
  createAdminUser(
    user: AdminUser,
    invitation: { readonly codeHash: string; readonly expiresAt: string },
    options?: GrantOptions,
  ): Promise<void>;
  /**
   * Stores the invitation of `user` (`invited`, with the digest of its code) that a caller of
   * `scope` asks for, in one write that reads and writes alike whatever it finds, so that neither
   * the answer nor its time tells the caller whether the e-mail is an admin user's it may not see
   * (issue 27). With `options.grantedBy`, first rejects as `createAdminUser` does for grants beyond
   * that admin user's. Then:
   * - `{ taken }`, nothing stored, when an admin user or a pending offer with this e-mail shares an
   *   organization with `scope` (any, for `{ all: true }`): the caller may list it anyway;
   * - `{ stored: "offer" }` when the e-mail is an admin user's that `scope` may not see: a pending
   *   offer of `user`'s role and grants to that e-mail, under `user.id`, offered by
   *   `options.grantedBy`. Until it is accepted (`acceptInvitationOffer`) it is listed, read,
   *   changed and deleted as the `invited` admin user `user` would be;
   * - `{ stored: "admin-user" }` otherwise, as `createAdminUser`.
   * Rejects with a conflict error only when another write took the e-mail at the same moment.
   */
  inviteAdminUser(
    scope: OrgScope,
    user: AdminUser,
    invitation: { readonly codeHash: string; readonly expiresAt: string },
    options?: GrantOptions,
  ): Promise<InvitationOutcome>;
  /**
   * Applies a change; `undefined` when not in scope. With `options.grantedBy`, a change of grants
   * is refused with a `GrantBeyondScopeError` when the grants the user would end with lie beyond
   * that admin user's own (`grantsBeyond`) — itself included — checked inside the write. A pending
   * offer changes the same way, stays `invited` whatever `status` says, and is from then on offered
   * by whoever changed its grants (`options.grantedBy`; absent: the operator).
   */
  updateAdminUser(
    scope: OrgScope,
    id: string,
    change: {
      readonly role?: AdminRole;
      readonly organizationIds?: readonly string[];
      /** A subset of the (new) `organizationIds`; absent: those of the current ones still granted. */
      readonly subtreeOrganizationIds?: readonly string[];
      readonly status?: AdminUserStatus;
      readonly updatedAt: string;
    },
    options?: GrantOptions,
  ): Promise<AdminUser | undefined>;
  /** Deletes the admin user and its keys, or withdraws the pending offer; false when not in scope. */
  deleteAdminUser(scope: OrgScope, id: string): Promise<boolean>;
  /**
   * Accepts the pending invitation whose code digest is `codeHash`, if it has not expired at `now`:
   * marks the user active, consumes the code (a second call with it finds nothing) and stores
   * `key`, atomically. `undefined` when there is no such unexpired invitation (an offer's code included).
   */
  acceptInvitation(codeHash: string, now: string, key: StoredApiKey): Promise<AdminUser | undefined>;
  /**
   * Accepts the pending invitation offer whose code digest is `codeHash`, if it has not expired at
   * `now`, in one write that also removes the offer. Its grants join those of the admin user with
   * its e-mail — each organization it lacks, with its subtree where offered — whose role, status
   * and keys stay, `key` not stored; or, when no admin user has that e-mail any more, the offer
   * becomes one: active, under the offer's id (which `key` names), with `key`. Refused, nothing
   * changed, with a conflict error when that admin user's role is `admin` and the offer's `viewer`
   * (one role for all its organizations: accepting would give more than offered), and with a
   * `GrantBeyondScopeError` when the offered grants lie beyond those the admin user who offered
   * them holds now (a deleted one holds none), read inside the write. `undefined` when there is no
   * such unexpired offer.
   */
  acceptInvitationOffer(codeHash: string, now: string, key: StoredApiKey): Promise<AcceptedOffer | undefined>;
  /** Stores an API key (an operator key, or a further key of an active admin user). */
  insertApiKey(key: StoredApiKey): Promise<void>;
  /**
   * Rotation of a key: deletes key `id` and stores `key` in its place, atomically, so the old
   * key fails from the moment this resolves and no moment exists without either. False, and
   * nothing stored, when there is no key `id`. Rejects when `key.hash` exists (as `insertApiKey`).
   */
  replaceApiKey(id: string, key: StoredApiKey): Promise<boolean>;
  /**
   * Stores the operator key `key` and deletes every other operator key, atomically, so the old
   * ones fail from the moment this resolves and no moment exists without an operator key; admin
   * keys stay. Resolves with how many it deleted. For an operator who lost the key (`scimkit
   * operator-key rotate`): the store keeps only digests, so the keys to retire cannot be named.
   * Rejects, with nothing changed, when `key` is not an operator key or `key.hash` exists.
   */
  replaceOperatorKeys(key: StoredApiKey): Promise<number>;
  /** The key with this digest, or `undefined`; look it up by an index on the digest. */
  findApiKeyByHash(hash: string): Promise<StoredApiKey | undefined>;
  /** Whether any operator key exists (the host server creates one on first start otherwise). */
  hasOperatorKey(): Promise<boolean>;
}
