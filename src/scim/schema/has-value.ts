/**
 * Whether a value counts as present: the one definition behind `pr` (RFC 7644 §3.4.2.2: "a
 * non-empty value, or … a non-empty node for complex attributes") and required-attribute checks.
 * RFC 7643 §2.5 makes null and empty arrays unassigned; an empty string is treated as no value too.
 */

// A SCIM value nests at most attribute → element → sub-attribute → element; deeper data is
// malformed, and a non-empty container there counts as a value rather than being walked.
const PRESENCE_DEPTH = 4;

export function hasValue(value: unknown, depth: number = PRESENCE_DEPTH): boolean {
  if (value === undefined || value === null || value === "") return false;
  if (typeof value !== "object") return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  if (depth <= 0) return children.length > 0;
  return children.some((child) => hasValue(child, depth - 1));
}
