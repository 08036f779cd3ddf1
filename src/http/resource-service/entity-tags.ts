/**
 * Entity-tag matching for `If-Match` and `If-None-Match` (RFC 7644 §3.14, RFC 7232 §2.3). Our
 * tags are weak (`W/"3"`), so comparison is weak: the opaque part decides.
 */

function opaque(tag: string): string {
  const trimmed = tag.trim().replace(/^W\//i, "");
  // Some clients echo the version without quotes; it names the same version.
  return trimmed.startsWith('"') && trimmed.endsWith('"') && trimmed.length >= 2 ? trimmed.slice(1, -1) : trimmed;
}

/** Whether a header value (`*`, or a comma-separated list of tags) matches `version`. */
export function matchesEntityTag(header: string, version: string): boolean {
  const tags = header
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);
  return tags.some((tag) => tag === "*" || opaque(tag) === version);
}
