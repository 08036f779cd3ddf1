/**
 * A compiled condition that still knows two things SQL text hides: whether it is a constant (so
 * `members.display eq "x"`, which can never hold, folds away instead of reaching the database) and
 * whether it can be NULL. SQL's three-valued logic makes `NOT x` NULL, not true, when `x` is NULL
 * — yet `not (title eq "x")` must hold for a user without a title (RFC 7644 §3.4.2.2 as
 * `matchesFilter` reads it) — so a nullable condition is negated with `IS NOT TRUE`. AND and OR
 * need nothing: with NULL read as false at the end (a WHERE clause), they already agree with
 * two-valued logic.
 */
import { sql, type Expression, type SqlBool } from "kysely";

/** A constant, or SQL with its nullability. */
export type Condition = boolean | { readonly sql: Expression<SqlBool>; readonly nullable: boolean };

/** A condition from SQL; `nullable` says whether it can evaluate to NULL. */
export function sqlCondition(expression: Expression<SqlBool>, nullable: boolean): Condition {
  return { sql: expression, nullable };
}

function combine(conditions: readonly Condition[], absorbing: boolean, operator: "and" | "or"): Condition {
  const parts: Exclude<Condition, boolean>[] = [];
  for (const condition of conditions) {
    if (condition === absorbing) return absorbing;
    if (typeof condition !== "boolean") parts.push(condition);
  }
  const [first] = parts;
  if (first === undefined) return !absorbing;
  if (parts.length === 1) return first;
  return {
    sql: sql<SqlBool>`(${sql.join(
      parts.map((part) => part.sql),
      sql` ${sql.raw(operator)} `,
    )})`,
    nullable: parts.some((part) => part.nullable),
  };
}

/** All of `conditions` (true when there are none). */
export function allOf(conditions: readonly Condition[]): Condition {
  return combine(conditions, false, "and");
}

/** Any of `conditions` (false when there are none). */
export function anyOf(conditions: readonly Condition[]): Condition {
  return combine(conditions, true, "or");
}

/** The two-valued negation of `condition`: true where it is false or NULL. */
export function negate(condition: Condition): Condition {
  if (typeof condition === "boolean") return !condition;
  const negated = condition.nullable ? sql<SqlBool>`(${condition.sql}) is not true` : sql<SqlBool>`not (${condition.sql})`;
  return { sql: negated, nullable: false };
}

/** The condition as SQL; constants become `true`/`false` (SQLite ≥ 3.23, PostgreSQL, MySQL). */
export function conditionSql(condition: Condition): Expression<SqlBool> {
  if (typeof condition === "boolean") return sql.lit(condition) as Expression<SqlBool>;
  return condition.sql;
}
