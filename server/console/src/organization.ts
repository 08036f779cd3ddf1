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
