/** The shapes the analytics interface answers, as far as the console reads them (docs/analytics.md). */

export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly status: "active" | "suspended";
  readonly parentId?: string;
  readonly compatibility?: string;
  readonly existingUsers?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface ScimToken {
  readonly id: string;
  readonly source: "static" | "issued";
  readonly label?: string;
  readonly prefix?: string;
  readonly createdAt?: string;
  readonly rotatedAt?: string;
  readonly expiresAt?: string;
  readonly lastUsedAt?: string;
  readonly previousSecretValidUntil?: string;
}

/** The SCIM base URL of `orgId` on this host, as the host builds it without a public URL. */
export function scimBaseUrlOf(orgId: string): string {
  return `${location.origin}/scim/Organizations/${encodeURIComponent(orgId)}/v2`;
}

/** `iso` in the reader's locale, or a dash. */
export function when(iso: string | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
