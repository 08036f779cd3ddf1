/**
 * The names of the built-in compatibility profiles (architecture §4): `generic` (every tolerance,
 * the default), `strict` (RFC 7643 and RFC 7644 to the letter) and one per identity provider.
 */

/** Every built-in profile name, in the order the documentation's table lists them. */
export const COMPATIBILITY_PROFILE_NAMES = ["generic", "strict", "entra", "okta", "google", "onelogin", "jumpcloud", "ping"] as const;

/** The name of a built-in compatibility profile. */
export type CompatibilityProfileName = (typeof COMPATIBILITY_PROFILE_NAMES)[number];

/** Whether `name` names a built-in profile (exactly, in lower case). */
export function isCompatibilityProfileName(name: unknown): name is CompatibilityProfileName {
  return typeof name === "string" && (COMPATIBILITY_PROFILE_NAMES as readonly string[]).includes(name);
}
