/**
 * Which identity provider sent a request, recognised from its `User-Agent`, so the provisioning log
 * can be filtered by it. The vendors do not document their provisioning clients' user agents as a
 * stable interface, so the match is on the vendor's name anywhere in the header, case-insensitive.
 */

/** The identity providers the log recognises; `other` for every other client (curl, a script, none). */
export type IdentityProvider = "entra" | "okta" | "onelogin" | "google" | "jumpcloud" | "ping" | "other";

/** Every `IdentityProvider`, for validating a filter. */
export const IDENTITY_PROVIDERS: readonly IdentityProvider[] = ["entra", "okta", "onelogin", "google", "jumpcloud", "ping", "other"];

// First match wins. Each pattern is the vendor's (or its product's) name, not an exact header: no
// vendor publishes its provisioning client's User-Agent as an interface, and the exact strings
// (e.g. Okta's "Okta SCIM Client …") were not verified against each vendor's current traffic
// here. Entra matches its older names too (Azure AD, AAD). A miss gives `other`, never a wrong
// vendor for a header that names one.
const PATTERNS: readonly (readonly [RegExp, IdentityProvider])[] = [
  [/microsoft|azure|\baad\b|entra/i, "entra"],
  [/okta/i, "okta"],
  [/onelogin/i, "onelogin"],
  [/google/i, "google"],
  [/jumpcloud/i, "jumpcloud"],
  [/\bping(identity|one|federate|\b)/i, "ping"],
];

/**
 * The identity provider a `User-Agent` names.
 *
 * @example identityProviderOf("Okta SCIM Client 1.0.0") // "okta"
 */
export function identityProviderOf(userAgent: string | undefined): IdentityProvider {
  if (!userAgent) return "other";
  for (const [pattern, provider] of PATTERNS) if (pattern.test(userAgent)) return provider;
  return "other";
}
