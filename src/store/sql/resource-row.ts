/**
 * A row of `scimkit_resources` as the store reads it, and the `StoredResource` it becomes. Public
 * in `scimkit/sql` for clients that read resources where they are, in queries of their own (the
 * analytics store's learners are the SCIM users), instead of copying them.
 */
import type { StoredMember, StoredResource } from "../resource-store.js";
import { sql } from "kysely";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import type { JsonRef } from "./filter/json-ref.js";

/**
 * The columns every read of a resource selects, from the table aliased `r`.
 *
 * @example db.selectFrom("scimkit_resources as r").select(resourceColumns).where("r.org_id", "=", "acme")
 */
export const resourceColumns = ["r.id", "r.version", "r.created", "r.last_modified", "r.attributes", "r.member_seq"] as const;

/**
 * Where `path` is in the stored attributes of the resource row aliased `alias`, for the dialect's
 * JSON readers (`jsonText`, `jsonBoolean`, `jsonElements`…): how the row keeps its attributes stays
 * the store's business. A path starts at a top-level attribute name or an extension's URN, in the
 * canonical spelling the core normalizes to (RFC 7643 §2.1: names are stored as the schema writes them).
 *
 * @example dialect.jsonText(resourceAttribute("r", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User", "department"))
 */
export function resourceAttribute(alias: string, ...path: readonly string[]): JsonRef {
  return { base: { kind: "document", document: sql.ref(`${alias}.attributes`) }, path };
}

/** What `resourceColumns` read. Counters arrive as numbers (SQLite) or decimal text (pg `bigint`). */
export interface ResourceRow {
  readonly id: string;
  readonly version: number | string;
  readonly created: string;
  readonly last_modified: string;
  readonly attributes: unknown;
  readonly member_seq: number | string | null;
}

/**
 * The resource of `row`, with `members` exactly when they are given: the caller decides whether
 * the request asked for them and the resource has a member list.
 */
export function storedResourceOf(row: ResourceRow, dialect: SqlDialect, members?: readonly StoredMember[]): StoredResource {
  return {
    id: row.id,
    version: String(row.version),
    created: row.created,
    lastModified: row.last_modified,
    attributes: dialect.fromJson(row.attributes),
    ...(members ? { members } : {}),
  };
}
