/**
 * Analytics API keys: bearer credentials of the analytics interface, separate from the SCIM
 * tokens (issue 6) — they live in the `AnalyticsStore`, so a SCIM token is never found here and
 * an analytics key is never found by a SCIM `TokenVerifier`. Like SCIM tokens they are 256-bit
 * random values kept only as SHA-256 digests and compared in constant time.
 */
import { randomBytes } from "node:crypto";
import { v7 } from "uuid";
import { hashToken, sameTokenHash, unmatchableTokenHash } from "scimkit";
import type { SetupLink } from "./setup-link-store.js";
import type { AdminUser, AdminUserStore, KeySubject, StoredApiKey } from "./analytics-store.js";

/** The prefix of every issued key, so scanners and people recognise a leaked one. */
export const API_KEY_PREFIX = "scimkit_ak_";
/** Random bytes in a key: 256 bits, 43 base64url characters. */
const KEY_BYTES = 32;
/** Shortest key `ensureOperatorKey` accepts: a configured key must not be guessable either. */
const MIN_CONFIGURED_KEY_LENGTH = 32;

/** A freshly issued key: the only time it is available. */
export interface IssuedApiKey {
  /** The bearer key, shown once. Never stored. */
  readonly key: string;
  /** What is stored: the digest and whom it speaks for. */
  readonly record: StoredApiKey;
}

/** Who a verified key speaks for. */
export type ApiKeyCaller =
  | { readonly kind: "operator"; readonly keyId: string }
  | { readonly kind: "admin"; readonly keyId: string; readonly adminUser: AdminUser }
  /**
   * A setup link's session (issue 31): the customer's IT admin on the setup page of one
   * organization, and nothing else; `keyId` is the link's id.
   */
  | { readonly kind: "setup"; readonly keyId: string; readonly link: SetupLink };

/** A new random key (`scimkit_ak_` + 43 base64url characters) and its stored record, not yet stored. */
export function newApiKey(subject: KeySubject, createdAt: string): IssuedApiKey {
  const key = API_KEY_PREFIX + randomBytes(KEY_BYTES).toString("base64url");
  return { key, record: { id: v7(), subject, hash: hashToken(key), createdAt } };
}

/**
 * Issues a key for `subject` and stores its digest.
 *
 * @example
 * const { key } = await issueApiKey(store, { kind: "operator" });
 * console.log(`operator key (shown once): ${key}`);
 */
export async function issueApiKey(
  store: Pick<AdminUserStore, "insertApiKey">,
  subject: KeySubject,
  now: Date = new Date(),
): Promise<IssuedApiKey> {
  const issued = newApiKey(subject, now.toISOString());
  await store.insertApiKey(issued.record);
  return issued;
}

/**
 * Whom `key` speaks for, or `undefined`. Unknown keys, keys of admin users that are missing or
 * not `active`, and malformed input all answer `undefined` after the same digest comparison, so
 * the answer's timing tells nothing about which it was.
 */
export async function verifyApiKey(
  store: Pick<AdminUserStore, "findApiKeyByHash" | "getAdminUser">,
  key: string,
): Promise<ApiKeyCaller | undefined> {
  const hash = hashToken(key);
  const found = await store.findApiKeyByHash(hash);
  const matches = sameTokenHash(found?.hash ?? unmatchableTokenHash, hash);
  if (found === undefined || !matches) return undefined;
  if (found.subject.kind === "operator") return { kind: "operator", keyId: found.id };
  const adminUser = await store.getAdminUser({ all: true }, found.subject.adminUserId);
  if (adminUser === undefined || adminUser.status !== "active") return undefined;
  return { kind: "admin", keyId: found.id, adminUser };
}

/**
 * Registers `key` (e.g. from `SCIMKIT_OPERATOR_KEY`) as an operator key unless it already is
 * one, and resolves with its record. Refuses keys shorter than 32 characters or with
 * whitespace, and a key that is already an admin user's.
 *
 * @example await ensureOperatorKey(store, process.env.SCIMKIT_OPERATOR_KEY);
 */
export async function ensureOperatorKey(
  store: Pick<AdminUserStore, "findApiKeyByHash" | "insertApiKey">,
  key: string,
  now: Date = new Date(),
): Promise<StoredApiKey> {
  if (key.length < MIN_CONFIGURED_KEY_LENGTH || /\s/.test(key)) {
    throw new Error(
      `analytics: an operator key needs at least ${MIN_CONFIGURED_KEY_LENGTH} characters and no whitespace; generate one with issueApiKey or \`openssl rand -base64 32\`.`,
    );
  }
  const hash = hashToken(key);
  const existing = await store.findApiKeyByHash(hash);
  if (existing !== undefined) {
    if (existing.subject.kind !== "operator")
      throw new Error("analytics: that key already belongs to an admin user; choose another operator key.");
    return existing;
  }
  const record: StoredApiKey = { id: v7(), subject: { kind: "operator" }, hash, createdAt: now.toISOString() };
  await store.insertApiKey(record);
  return record;
}
