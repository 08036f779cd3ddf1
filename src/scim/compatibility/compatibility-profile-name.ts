/**
 * The names of the built-in compatibility profiles: `generic` (every tolerance, the default),
 * `strict` (RFC 7643/7644 to the letter), and one per identity provider.
 */
export const COMPATIBILITY_PROFILE_NAMES = ["generic", "strict", "entra", "okta", "google", "onelogin", "jumpcloud", "ping"] as const;

/** One of `COMPATIBILITY_PROFILE_NAMES`. */
export type CompatibilityProfileName = (typeof COMPATIBILITY_PROFILE_NAMES)[number];
