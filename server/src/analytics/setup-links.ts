/**
 * Setup links' secrets (issue 31): the link's one-time code and the setup session it is
 * exchanged for, each 32 random bytes behind a prefix that says what it is (so a session is
 * told from an API key before any lookup), kept by the store only as `hashToken` digests.
 */
import { randomBytes } from "node:crypto";
import { hashToken } from "scimkit";
import type { ApiKeyCaller } from "./api-keys.js";
import type { SetupLinkStore } from "./setup-link-store.js";

const CODE_PREFIX = "scimkit_link_";
const SESSION_PREFIX = "scimkit_setup_";

/** How long a link is valid unless its creator says otherwise: long enough to reach the right person, 3 days. */
export const DEFAULT_SETUP_LINK_MINUTES = 3 * 24 * 60;
/** The longest a link may be valid: 7 days. The shortest: 5 minutes. */
export const MAX_SETUP_LINK_MINUTES = 7 * 24 * 60;
export const MIN_SETUP_LINK_MINUTES = 5;

/** A new link code. */
export function newSetupCode(): string {
  return CODE_PREFIX + randomBytes(32).toString("base64url");
}

/** A new setup session. */
export function newSetupSession(): string {
  return SESSION_PREFIX + randomBytes(32).toString("base64url");
}

/** Whether a bearer token is a setup session (rather than an API key). */
export function isSetupSession(key: string): boolean {
  return key.startsWith(SESSION_PREFIX);
}

/** The caller of a setup session, while its link is unrevoked and unexpired; undefined otherwise. */
export async function verifySetupSession(
  store: Pick<SetupLinkStore, "findSetupSession">,
  key: string,
  now: Date,
): Promise<ApiKeyCaller | undefined> {
  // Looked up by the digest of 256 random bits: what a lookup's timing could tell is of a digest, not of a session.
  const link = await store.findSetupSession(hashToken(key), now.toISOString());
  return link === undefined ? undefined : { kind: "setup", keyId: link.id, link };
}
