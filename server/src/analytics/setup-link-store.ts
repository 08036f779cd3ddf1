/**
 * Setup links in the analytics store (issue 31): the operator, or an admin of the organization,
 * hands the customer's IT admin a one-time, expiring link to connect their own identity provider.
 * The link carries no standing credential: its code is used once — exchanged for a setup session
 * that grants the setup of that one organization until the link expires or is revoked — and the
 * store keeps only digests of the code and of the session. Part of `AnalyticsStore`.
 */
import type { CompatibilityProfileName } from "scimkit/core";

/** The identity providers the setup page guides through: a compatibility profile's, or another SCIM 2.0 client. */
export type SetupIdentityProvider = Exclude<CompatibilityProfileName, "generic" | "strict"> | "other";

/** One setup link of an organization, as the operator and its admins see it: never its code. */
export interface SetupLink {
  /** Service-assigned id (UUID v7). */
  readonly id: string;
  /** The organization it sets up. */
  readonly orgId: string;
  /** The identity provider the link was made for, or the one the IT admin chose on the page. */
  readonly identityProvider?: SetupIdentityProvider;
  /** The API key id of whoever created it. */
  readonly createdBy?: string;
  /** ISO 8601 times. */
  readonly createdAt: string;
  readonly expiresAt: string;
  /** When its code was exchanged for a setup session: it opens nothing again. */
  readonly usedAt?: string;
  /** When it was revoked: its session, if any, ends too. */
  readonly revokedAt?: string;
  /** The SCIM token the setup page revealed (once), by id. */
  readonly tokenId?: string;
}

/** Why a code opens nothing: what the page says, and grants nothing. */
export type SetupLinkRefusal = "expired" | "used" | "revoked";

/** Setup links and their sessions. */
export interface SetupLinkStore {
  /**
   * Stores `link` (unused, unrevoked) with the digest of its code (`hashToken(code)`, unique).
   *
   * @example await store.createSetupLink({ id, orgId: "acme", createdAt, expiresAt }, hashToken(code))
   */
  createSetupLink(link: SetupLink, codeHash: string): Promise<void>;
  /** The links of `orgId`, the most recent first; `[]` for none (or no such organization). */
  listSetupLinks(orgId: string): Promise<readonly SetupLink[]>;
  /** `orgId`'s link `id`, or undefined. */
  getSetupLink(orgId: string, id: string): Promise<SetupLink | undefined>;
  /**
   * Revokes `orgId`'s link `id` at `at` (used or not; its session ends): the link as revoked, or
   * undefined when there is no such link. A revoked link stays revoked (its first time is kept).
   */
  revokeSetupLink(orgId: string, id: string, at: string): Promise<SetupLink | undefined>;
  /**
   * Exchanges the code whose digest is `codeHash` for the session whose digest is `sessionHash`,
   * atomically and once: the link, marked used at `at`, when it is unused, unrevoked and expires
   * after `at`; its refusal otherwise; undefined when no link has that code. Of two concurrent
   * exchanges of one code, one wins.
   */
  useSetupLink(codeHash: string, at: string, sessionHash: string): Promise<SetupLink | SetupLinkRefusal | undefined>;
  /** The link whose session digest is `sessionHash`, while it is unrevoked and expires after `at`; undefined otherwise. */
  findSetupSession(sessionHash: string, at: string): Promise<SetupLink | undefined>;
  /** Records the identity provider the IT admin chose on link `id`'s page. */
  setSetupIdentityProvider(id: string, provider: SetupIdentityProvider): Promise<void>;
  /**
   * Records that link `id`'s page revealed token `tokenId`, unless it revealed one already: true
   * when recorded, false when a token was recorded before (the page shows a token once).
   */
  recordSetupToken(id: string, tokenId: string): Promise<boolean>;
}
