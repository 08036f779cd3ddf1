/**
 * A place inside the JSON the SQL store keeps, as the filter compiler hands it to a dialect: where
 * the JSON starts (the `attributes` column, or the current element of an array being iterated)
 * and the keys below it. Plain data, so that every dialect reads the same description and only the
 * SQL it writes for it differs (architecture §6.4).
 */
import type { Expression } from "kysely";

/** Where a JSON path starts. */
export type JsonBase =
  /** A JSON document: the `attributes` column (TEXT in SQLite, JSONB in PostgreSQL). */
  | { readonly kind: "document"; readonly document: Expression<unknown> }
  /**
   * The current element of `FilterDialect.jsonElements(…, alias)`. Dialects differ in what an
   * element is (SQLite's `json_each.value` is already SQL for a scalar; PostgreSQL's is `jsonb`),
   * so the dialect that produced the alias is the one that reads it.
   */
  | { readonly kind: "element"; readonly alias: string };

/**
 * A JSON value: `base` followed by `path`, each step an object key (an attribute name or an
 * extension URN) or an array index.
 *
 * @example { base: { kind: "document", document: sql.ref("r.attributes") }, path: ["name", "givenName"] }
 */
export interface JsonRef {
  readonly base: JsonBase;
  readonly path: readonly (string | number)[];
}

/** `ref` one step deeper. */
export function jsonChild(ref: JsonRef, step: string | number): JsonRef {
  return { base: ref.base, path: [...ref.path, step] };
}

/**
 * `path` in the JSON path syntax SQLite and MySQL share: `$."urn:…:User"."department"`,
 * `$."tags"[0]`. Keys are quoted (URNs hold `:` and `.`); a key holding `"` cannot be quoted in
 * SQLite, and no schema name holds one (RFC 7643 §2.1 ATTRNAME, RFC 8141 URNs), so it is refused.
 */
export function jsonPathText(path: readonly (string | number)[]): string {
  const steps = path.map((step) => {
    if (typeof step === "number") return `[${step}]`;
    if (step.includes('"') || step.includes("\\")) throw new Error(`A JSON key with a quote or backslash cannot be addressed: ${step}`);
    return `."${step}"`;
  });
  return `$${steps.join("")}`;
}
