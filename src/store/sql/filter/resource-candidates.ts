/**
 * What each SCIM path reads in the SQL store's tables (`sql-tables.ts`), mirroring `resourceView`
 * — the JSON a filter sees: the stored attributes, with `id`, `members` and `meta` put back.
 *
 * - `id` → `r.id`; `externalId` → `r.external_id` (a copy of `attributes.externalId`, indexed);
 * - `meta.resourceType`, `meta.created`, `meta.lastModified` → their columns; `meta.version` →
 *   the entity tag `W/"<version>"` (RFC 7644 §3.14) built from `r.version`; `meta.location` is
 *   rendered per request and never stored, so it denotes nothing;
 * - the core `members` → rows of `scimkit_members`, each the element `{ value, type }` (the view
 *   has no `display` or `$ref`);
 * - everything else → `r.attributes`, extension attributes under their URN (RFC 7643 §3.3).
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { AttributeDefinition } from "../../../scim/schema/attribute-definition.js";
import type { ResolvedPath } from "../../../scim/schema/resolved-path.js";
import { isMembersPath } from "../../filter-mentions.js";
import type { JsonRef } from "./json-ref.js";
import { resourceAttribute } from "../resource-row.js";
import {
  flatMapCandidates,
  jsonCandidates,
  noCandidates,
  objectCandidate,
  oneCandidate,
  textColumnCandidate,
  type SqlCandidate,
  type SqlCandidates,
} from "./sql-candidates.js";
import { sqlCondition, type Condition } from "./sql-condition.js";
import type { CompileScope } from "./sql-filter-context.js";

/** A column of the resource row. */
export function resourceColumn(scope: CompileScope, column: string): Expression<unknown> {
  return sql.ref(`${scope.resource}.${column}`);
}

/** `meta.version` as `resourceView` renders it: the weak entity tag `W/"<version>"`. */
export function versionTag(scope: CompileScope): Expression<unknown> {
  return scope.dialect.concat([sql.lit('W/"'), resourceColumn(scope, "version"), sql.lit('"')]);
}

/** The stored JSON of the attribute `path` names (its top-level attribute, not its sub-attribute). */
export function attributeRef(path: ResolvedPath, scope: CompileScope): JsonRef {
  return path.extension
    ? resourceAttribute(scope.resource, path.schema, path.attribute.name)
    : resourceAttribute(scope.resource, path.attribute.name);
}

/**
 * A condition that holds when the resource has a row in `table` (aliased `alias`) matching
 * `where`, where `idColumn` holds the resource's id. Written as the dialect's planner drives best
 * from the side table's index (`FilterDialect.lookup`).
 */
export function sideTableLookup(
  scope: CompileScope,
  table: "scimkit_unique_keys" | "scimkit_members",
  alias: string,
  idColumn: string,
  where: Expression<SqlBool>,
): Condition {
  const source = sql`${sql.table(table)} as ${sql.id(alias)}`;
  const own = sql.ref(`${alias}.${idColumn}`);
  const id = resourceColumn(scope, "id");
  const expression =
    scope.dialect.lookup === "in"
      ? sql<SqlBool>`${id} in (select ${own} from ${source} where ${where})`
      : sql<SqlBool>`exists (select 1 from ${source} where ${where} and ${own} = ${id})`;
  return sqlCondition(expression, false);
}

function metaCandidate(scope: CompileScope): SqlCandidate {
  return objectCandidate((definition: AttributeDefinition) => {
    switch (definition.name) {
      case "resourceType":
        return oneCandidate(textColumnCandidate(resourceColumn(scope, "resource_type"), "alwaysPresent"));
      case "created":
        return oneCandidate(textColumnCandidate(resourceColumn(scope, "created"), "alwaysPresent"));
      case "lastModified":
        return oneCandidate(textColumnCandidate(resourceColumn(scope, "last_modified"), "alwaysPresent"));
      case "version":
        return oneCandidate(textColumnCandidate(versionTag(scope), "alwaysPresent"));
      default:
        return noCandidates;
    }
  });
}

/** The members of the resource, one candidate per row of `scimkit_members`. */
function memberCandidates(scope: CompileScope): SqlCandidates {
  return {
    some(test) {
      const alias = scope.alias("m");
      const member = objectCandidate((definition) => {
        if (definition.name === "value") return oneCandidate(textColumnCandidate(sql.ref(`${alias}.member_id`), "alwaysPresent"));
        if (definition.name === "type") return oneCandidate(textColumnCandidate(sql.ref(`${alias}.member_type`), "alwaysPresent"));
        return noCandidates;
      });
      const condition = test(member);
      if (condition === false) return false;
      const orgId = sql<SqlBool>`${sql.ref(`${alias}.org_id`)} = ${resourceColumn(scope, "org_id")}`;
      const where = condition === true ? orgId : sql<SqlBool>`${orgId} and ${condition.sql}`;
      return sideTableLookup(scope, "scimkit_members", alias, "group_id", where);
    },
  };
}

/** Whether `path` is a common attribute stored in a column (`id`, `externalId`, `meta`). */
export function isColumnPath(path: ResolvedPath): boolean {
  return !path.extension && ["id", "externalId", "meta"].includes(path.attribute.name);
}

function attributeCandidates(path: ResolvedPath, scope: CompileScope): SqlCandidates {
  if (!path.extension) {
    switch (path.attribute.name) {
      case "id":
        return oneCandidate(textColumnCandidate(resourceColumn(scope, "id"), "alwaysPresent"));
      case "externalId":
        return oneCandidate(textColumnCandidate(resourceColumn(scope, "external_id"), "nullable"));
      case "meta":
        return oneCandidate(metaCandidate(scope));
    }
    if (isMembersPath(path)) return memberCandidates(scope);
  }
  return jsonCandidates(attributeRef(path, scope), path.attribute, scope);
}

/** The values `path` denotes in the resource row (`matchesFilter`'s `readFromResource`). */
export function resourceCandidates(path: ResolvedPath, scope: CompileScope): SqlCandidates {
  const top = attributeCandidates(path, scope);
  const sub = path.subAttribute;
  return sub ? flatMapCandidates(top, (candidate) => candidate.sub(sub)) : top;
}
