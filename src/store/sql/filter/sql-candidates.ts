/**
 * The values a SCIM path denotes, as SQL (the counterpart of `matchesFilter`'s readers): a
 * multi-valued attribute denotes each of its elements, `emails.value` each element's `value`,
 * RFC 7644 §3.4.2.2 "any value matches". A compiler never sees rows; it asks for a condition that
 * holds when SOME candidate passes a test, and each kind of source (a JSON value, an array, a
 * column, a side table) answers with its own SQL.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { AttributeDefinition } from "../../../scim/schema/attribute-definition.js";
import { jsonChild, type JsonRef } from "./json-ref.js";
import { sqlCondition, type Condition } from "./sql-condition.js";
import type { CompileScope } from "./sql-filter-context.js";

/** A SQL scalar and whether it can be NULL. */
export interface SqlValue {
  readonly sql: Expression<unknown>;
  readonly nullable: boolean;
  /** Never NULL nor empty by the store's contract (ids, timestamps): presence folds to true. */
  readonly alwaysPresent?: boolean;
}

/** One value a path denotes. Readers return undefined when the value can never be of that type. */
export interface SqlCandidate {
  /** The value as text when it is a string. */
  text(): SqlValue | undefined;
  /** The value as an SQL number when it is a number. */
  number(): SqlValue | undefined;
  /** The value as the dialect's boolean (`FilterDialect.jsonBoolean`) when it is a boolean. */
  boolean(): SqlValue | undefined;
  /** Whether the value is an object, i.e. an element `attr[…]` may test. */
  isObject(): Condition;
  /** The values of one of its sub-attributes (none unless it is an object). */
  sub(definition: AttributeDefinition): SqlCandidates;
}

/** Everything a path denotes in one resource. */
export interface SqlCandidates {
  /** A condition that holds when at least one candidate passes `test`. */
  some(test: (candidate: SqlCandidate) => Condition): Condition;
}

/** A path that denotes nothing: an attribute no row stores (`members.display`, `meta.location`). */
export const noCandidates: SqlCandidates = { some: () => false };

/** Exactly one candidate. */
export function oneCandidate(candidate: SqlCandidate): SqlCandidates {
  return { some: (test) => test(candidate) };
}

/** For each candidate of `outer`, the candidates `inner` gives for it (`emails` → `emails.value`). */
export function flatMapCandidates(outer: SqlCandidates, inner: (candidate: SqlCandidate) => SqlCandidates): SqlCandidates {
  return { some: (test) => outer.some((candidate) => inner(candidate).some(test)) };
}

/** An object whose sub-attributes are columns, or nothing (`meta`, a member row). */
export function objectCandidate(sub: (definition: AttributeDefinition) => SqlCandidates): SqlCandidate {
  return {
    text: () => undefined,
    number: () => undefined,
    boolean: () => undefined,
    isObject: () => true,
    sub,
  };
}

/**
 * A text column: `nullable` for `r.external_id`; `alwaysPresent` for the ones the store always
 * fills with a non-empty string (`r.id`, `r.created`, `m.member_id`, …).
 */
export function textColumnCandidate(value: Expression<unknown>, presence: "nullable" | "alwaysPresent"): SqlCandidate {
  return {
    text: () => ({ sql: value, nullable: presence === "nullable", alwaysPresent: presence === "alwaysPresent" }),
    number: () => undefined,
    boolean: () => undefined,
    isObject: () => false,
    sub: () => noCandidates,
  };
}

/** The JSON value at `ref`. */
export function jsonCandidate(ref: JsonRef, scope: CompileScope): SqlCandidate {
  const { dialect } = scope;
  return {
    text: () => ({ sql: dialect.jsonText(ref), nullable: true }),
    number: () => ({ sql: dialect.jsonNumber(ref), nullable: true }),
    boolean: () => ({ sql: dialect.jsonBoolean(ref), nullable: true }),
    isObject: () => sqlCondition(dialect.jsonIsObject(ref), true),
    sub: (definition) => jsonCandidates(jsonChild(ref, definition.name), definition, scope),
  };
}

/**
 * The values of an attribute or sub-attribute `definition` stored at `ref`: its elements when it
 * is multi-valued (canonical attributes hold an array exactly there), else the value itself.
 */
export function jsonCandidates(ref: JsonRef, definition: AttributeDefinition, scope: CompileScope): SqlCandidates {
  if (!definition.multiValued) return oneCandidate(jsonCandidate(ref, scope));
  return {
    some(test) {
      const elements = scope.dialect.jsonElements(ref, scope.alias("e"));
      const condition = test(jsonCandidate(elements.element, scope));
      if (condition === false) return false;
      const where = condition === true ? sql`` : sql` where ${condition.sql}`;
      return sqlCondition(sql<SqlBool>`exists (select 1 from ${elements.from}${where})`, false);
    },
  };
}
