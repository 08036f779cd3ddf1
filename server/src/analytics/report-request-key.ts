/**
 * What makes two report requests identical (issue 19): the caller's scope, the report's kind, its
 * subject and its filters. The digest is stored with the operation, so admission finds an
 * identical one by an index lookup, and it holds nothing readable (the scope's ids).
 */
import { createHash } from "node:crypto";
import type { OrgScope } from "./analytics-store.js";

/** The request key of a report: SHA-256 hex over a canonical JSON of its parts. */
export function reportRequestKey(scope: OrgScope, kind: string, subjectId: string, filters: Readonly<Record<string, unknown>>): string {
  // The scope is part of it: two callers who see different organizations never share a report.
  const scopePart = "all" in scope ? ["all"] : ["orgs", ...[...scope.orgIds].sort()];
  const filterPart = Object.keys(filters)
    .sort()
    .map((name) => [name, filters[name]]);
  return createHash("sha256")
    .update(JSON.stringify([scopePart, kind, subjectId, filterPart]))
    .digest("hex");
}
