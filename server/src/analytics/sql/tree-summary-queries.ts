/**
 * The figures of an organization's subtree in SQL (issue 17, item 4): the subtree is a `with
 * recursive` walk, and each kind of record — learners, enrolments, simulation recipients — is
 * one aggregate grouped by organization over it; SQLite and PostgreSQL alike, except for reading
 * a work e-mail out of the JSON `emails` array, which each does its own way.
 */
import { sql, type Kysely, type RawBuilder } from "kysely";
import { resourceAttribute, type JsonRef, type SqlDialect } from "scimkit/sql";
import type { AnalyticsStore, OrganizationFigures, OrgScope } from "../analytics-store.js";
import { MAX_ORGANIZATION_DEPTH } from "../organization-tree-error.js";
import type { AnalyticsDatabase } from "./analytics-tables.js";
import { learnerConditions, LEARNER_TYPE } from "./learner-queries.js";
import { scopeOrgIds } from "./scope-org-ids.js";

// A subtree is never deeper than the tree's bound; the limit also ends a walk over rows a hand
// edit of the database turned into a cycle.
const MAX_DEPTH_WALK = MAX_ORGANIZATION_DEPTH + 1;

/** `orgId` and its descendants within `scope` as a CTE `subtree(id)`. */
function subtreeWithin(orgId: string, scope: OrgScope): RawBuilder<unknown> {
  const ids = scopeOrgIds(scope);
  const within = ids === undefined ? sql`` : sql`where id in (${sql.join(ids)})`;
  return sql`with recursive walk(id, level) as (
    select id, 1 from scimkit_organizations where id = ${orgId}
    union all
    select o.id, w.level + 1 from scimkit_organizations o join walk w on o.parent_id = w.id where w.level < ${MAX_DEPTH_WALK}
  ), subtree(id) as (select distinct id from walk ${within})`;
}

/**
 * The learner `r`'s first work e-mail, lower-cased, or null. RFC 7643 §2.2 and §8.7.1: `type`
 * is not case-exact, so "Work" counts. Read through the dialect's JSON hooks, as the store's own
 * filters read `emails[type eq "work"]`.
 */
function workEmail(dialect: SqlDialect): RawBuilder<string | null> {
  const emails = dialect.jsonElements(resourceAttribute("r", "emails"), "e");
  const field = (name: string): JsonRef => ({ base: emails.element.base, path: [...emails.element.path, name] });
  return sql`(select ${dialect.lower(dialect.jsonText(field("value")))} from ${emails.from}
    where ${dialect.lower(dialect.jsonText(field("type")))} = ${"work"} order by ${emails.index} limit 1)`;
}

const NO_FIGURES: OrganizationFigures = {
  learners: 0,
  activeLearners: 0,
  enrolled: 0,
  completed: 0,
  overdue: 0,
  sent: 0,
  clicked: 0,
  reported: 0,
};

type Counted = Record<string, number | string | null>;

/** The tree summary member of `AnalyticsStore` over `db`. */
export function treeSummaryQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): Pick<AnalyticsStore, "treeSummary"> {
  return {
    async treeSummary(scope, orgId, options) {
      const ids = scopeOrgIds(scope);
      if (ids !== undefined && !ids.includes(orgId)) return undefined;
      const subtree = subtreeWithin(orgId, scope);
      const { rows: members } = await sql<{ readonly id: string }>`${subtree} select id from subtree order by id`.execute(db);
      if (members.length === 0) return undefined;
      const active = sql.join(learnerConditions(dialect, { active: true }), sql` and `);
      const [learners, enrolments, recipients] = await Promise.all([
        sql<Counted>`${subtree} select r.org_id as org_id, count(*) as learners,
          sum(case when ${active} then 1 else 0 end) as active_learners
          from scimkit_resources r where r.resource_type = ${LEARNER_TYPE} and r.org_id in (select id from subtree)
          group by r.org_id`.execute(db),
        sql<Counted>`${subtree} select e.org_id as org_id, count(*) as enrolled,
          sum(case when e.status = 'completed' then 1 else 0 end) as completed,
          sum(case when e.status <> 'completed' and c.due_at is not null and c.due_at < ${options.asOf} then 1 else 0 end) as overdue
          from scimkit_enrolments e join scimkit_campaigns c on c.id = e.campaign_id
          where e.org_id in (select id from subtree) group by e.org_id`.execute(db),
        sql<Counted>`${subtree} select s.org_id as org_id, count(s.sent_at) as sent, count(s.clicked_at) as clicked,
          count(s.reported_at) as reported
          from scimkit_simulation_recipients s where s.org_id in (select id from subtree) group by s.org_id`.execute(db),
      ]);
      const byOrg = new Map<string, Counted>();
      for (const row of [...learners.rows, ...enrolments.rows, ...recipients.rows]) {
        byOrg.set(String(row["org_id"]), { ...byOrg.get(String(row["org_id"])), ...row });
      }
      const count = (row: Counted | undefined, column: string): number => Number(row?.[column] ?? 0);
      const organizations = members.map(({ id }) => {
        const row = byOrg.get(id);
        return {
          orgId: id,
          learners: count(row, "learners"),
          activeLearners: count(row, "active_learners"),
          enrolled: count(row, "enrolled"),
          completed: count(row, "completed"),
          overdue: count(row, "overdue"),
          sent: count(row, "sent"),
          clicked: count(row, "clicked"),
          reported: count(row, "reported"),
        };
      });
      const totals = { ...NO_FIGURES };
      for (const figures of organizations) {
        for (const key of Object.keys(NO_FIGURES) as (keyof OrganizationFigures)[]) totals[key] += figures[key];
      }
      const summary = { orgId, organizations, totals, asOf: options.asOf };
      if (options.people !== true) return summary;
      // A person is their work e-mail; without one, the learner itself (its organization and id).
      // Compared byte for byte: the folded e-mail and the id columns have different collations on PostgreSQL.
      const person = sql`coalesce(${dialect.binaryText(workEmail(dialect))}, ${"id:"} || r.org_id || ${"/"} || r.id)`;
      const { rows } = await sql<Counted>`${subtree} select count(distinct ${person}) as learners,
        count(distinct case when ${active} then ${person} end) as active_learners
        from scimkit_resources r where r.resource_type = ${LEARNER_TYPE} and r.org_id in (select id from subtree)`.execute(db);
      return { ...summary, people: { learners: count(rows[0], "learners"), activeLearners: count(rows[0], "active_learners") } };
    },
  };
}
