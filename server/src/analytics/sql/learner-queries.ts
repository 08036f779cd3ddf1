/**
 * Learners in SQL: the SCIM users in `scimkit_resources`, read where they are (never copied, so
 * never stale), of the organizations the analytics store knows. Filters and paging are SQL over
 * the JSON attributes; the display rules (`learnerOf`, shared with the memory store) apply to
 * the rows returned.
 */
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from "kysely";
import { compileFilter, createSchemaRegistry, type ResourceSchema } from "scimkit/core";
import { resourceColumns, resourceFilterSql, storedResourceOf, type SqlDialect } from "scimkit/sql";
import type { AnalyticsDatabase } from "./analytics-tables.js";
import type { AnalyticsStore, Learner, LearnerFilter } from "../analytics-store.js";
import { learnerOf } from "../memory/learner-of.js";
import { pageOf, rowsToRead } from "./keyset-page.js";
import { scopeOrgIds } from "./scope-org-ids.js";

/** The SCIM resource type of a learner. */
export const LEARNER_TYPE = "User";

/** The Enterprise User extension (RFC 7643 §4.3), whose `department` a learner shows. */
const ENTERPRISE_USER_URN = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

/** The learner columns of a row that left-joins `scimkit_resources as r` (`learnerOfJoined` reads them). */
export const joinedLearnerColumns = [
  "r.id as learner_id",
  "r.version as learner_version",
  "r.created as learner_created",
  "r.last_modified as learner_last_modified",
  "r.attributes as learner_attributes",
] as const;

/** What `joinedLearnerColumns` read: all null when the user no longer exists. */
export interface JoinedLearnerRow {
  readonly learner_id: string | null;
  readonly learner_version: number | string | null;
  readonly learner_created: string | null;
  readonly learner_last_modified: string | null;
  readonly learner_attributes: unknown;
}

/** The learner of a joined row of `orgId`, or undefined when the SCIM user is gone. */
export function learnerOfJoined(row: JoinedLearnerRow, orgId: string, dialect: SqlDialect): Learner | undefined {
  const { learner_id: id, learner_version: version, learner_created: created, learner_last_modified: lastModified } = row;
  if (id === null || version === null || created === null || lastModified === null) return undefined;
  return learnerOf(
    orgId,
    storedResourceOf({ id, version, created, last_modified: lastModified, attributes: row.learner_attributes, member_seq: null }, dialect),
  );
}

/** The User schema (with the Enterprise User extension) the learner conditions are bound to. */
const learnerSchema: ResourceSchema = (() => {
  const schema = createSchemaRegistry().resourceType(LEARNER_TYPE);
  if (!schema) throw new Error(`The schema registry has no ${LEARNER_TYPE} resource type`);
  return schema;
})();

/** `text` bound to the learner schema; the texts here are constants and values JSON-quoted, so it compiles. */
function learnerFilter(text: string) {
  const compiled = compileFilter(learnerSchema, text);
  if (!compiled.ok) throw new Error(`Learner filter ${text} does not compile: ${compiled.error.detail}`);
  return compiled.value;
}

/**
 * The conditions of `filter` on the resource aliased `r`, as SCIM filters the store compiles
 * (`resourceFilterSql`), so they select exactly what `learnerOf` and `?filter=` would.
 */
export function learnerConditions(dialect: SqlDialect, filter: Omit<LearnerFilter, "orgId">): Expression<SqlBool>[] {
  const conditions: string[] = [];
  // Absent counts as active, as `learnerOf` reads it.
  if (filter.active !== undefined) conditions.push(filter.active ? "not (active eq false)" : "active eq false");
  // RFC 7643 §4.3: department is not case-exact, so `eq` folds case as the list filter does.
  if (filter.department !== undefined) conditions.push(`${ENTERPRISE_USER_URN}:department eq ${JSON.stringify(filter.department)}`);
  return conditions.map((text) => resourceFilterSql(learnerFilter(text), dialect, "r"));
}

/** Splits a learner list position, `"<orgId>\n<id>"`; a position without the newline sorts before every id of that organization. */
function positionOf(after: string): readonly [string, string] {
  const split = after.indexOf("\n");
  return split < 0 ? [after, ""] : [after.slice(0, split), after.slice(split + 1)];
}

/** Whether the organization of the resource `r` is one the analytics store knows. */
function registered(eb: ExpressionBuilder<AnalyticsDatabase & { r: AnalyticsDatabase["scimkit_resources"] }, "r">) {
  return eb.exists(eb.selectFrom("scimkit_organizations as o").select("o.id").whereRef("o.id", "=", "r.org_id"));
}

/** The learner members of `AnalyticsStore` over `db`. */
export function learnerQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): Pick<AnalyticsStore, "listLearners"> {
  return {
    async listLearners(scope, filter, page) {
      const ids = scopeOrgIds(scope);
      if (ids?.length === 0) return { items: [] };
      let query = db
        .selectFrom("scimkit_resources as r")
        .select(["r.org_id", ...resourceColumns])
        .where("r.resource_type", "=", LEARNER_TYPE)
        .where(registered);
      if (ids !== undefined) query = query.where("r.org_id", "in", ids);
      if (filter.orgId !== undefined) query = query.where("r.org_id", "=", filter.orgId);
      for (const condition of learnerConditions(dialect, filter)) query = query.where(condition);
      if (page.after !== undefined) {
        const [orgId, id] = positionOf(page.after);
        // A row value: PostgreSQL and SQLite start an index range at it, where the equivalent OR
        // would be read from the start of the list and filtered — slower with every page.
        query = query.where((eb) => eb(eb.refTuple("r.org_id", "r.id"), ">", eb.tuple(orgId, id)));
        // Within the one organization a read may see, the same bound on the id alone lets SQLite
        // start the (org_id, resource_type, id) range there instead of at the organization's start.
        if (orgId === (filter.orgId ?? (ids?.length === 1 ? ids[0] : undefined))) query = query.where("r.id", ">", id);
      }
      const rows = await query.orderBy("r.org_id").orderBy("r.id").limit(rowsToRead(page)).execute();
      return pageOf(
        rows,
        page,
        (row) => learnerOf(row.org_id, storedResourceOf(row, dialect)),
        (learner) => `${learner.orgId}\n${learner.id}`,
      );
    },
  };
}
