/**
 * Canonical attributes to the application's row and back, through the column mapping: mapped
 * values to their columns (converted where the mapping says), everything else to the JSON column
 * or, without one, nowhere (spec §1, §2.3: attributes the service does not synchronize).
 */
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import type { MappedColumn, MappedColumns } from "./mapped-columns.js";
import type { ColumnValue, ScimValue } from "./table-mapping.js";

/** The columns a write sets from the attributes, and the attributes left for the JSON column. */
export interface RowValues {
  /** Column name → value, for every mapped column (NULL for an absent attribute). */
  readonly columns: Readonly<Record<string, ColumnValue>>;
  /** The attributes no column holds. */
  readonly rest: ScimObject;
}

function isObject(value: unknown): value is ScimObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function valueAt(attributes: ScimObject, location: readonly string[]): unknown {
  let current: unknown = attributes;
  for (const step of location) current = isObject(current) ? current[step] : undefined;
  return current;
}

/** `attributes` without the value at `location`, dropping objects it leaves empty. */
function without(attributes: ScimObject, location: readonly string[]): ScimObject {
  const [first, ...rest] = location;
  if (first === undefined || !(first in attributes)) return attributes;
  const { [first]: value, ...others } = attributes;
  if (rest.length === 0 || !isObject(value)) return rest.length === 0 ? others : attributes;
  const inner = without(value, rest);
  return Object.keys(inner).length === 0 ? others : { ...others, [first]: inner };
}

function withValue(attributes: ScimObject, location: readonly string[], value: ScimValue): ScimObject {
  const [first, ...rest] = location;
  if (first === undefined) return attributes;
  if (rest.length === 0) return { ...attributes, [first]: value };
  const inner = attributes[first];
  return { ...attributes, [first]: withValue(isObject(inner) ? inner : {}, rest, value) };
}

/** The column value of a mapped attribute's SCIM value; `booleans` says how the driver binds one. */
function toColumnValue(mapped: MappedColumn, value: unknown, booleans: "native" | "integer"): ColumnValue {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    throw new Error(
      `tableStore: ${mapped.location.join(".")} holds a complex or multi-valued value, which column ${mapped.column} cannot hold`,
    );
  }
  if (mapped.toColumn) return mapped.toColumn(value);
  if (typeof value === "boolean" && booleans === "integer") return value ? 1 : 0;
  return value;
}

/** The SCIM value of a column, or undefined for NULL and what the conversion rejects. */
function fromColumnValue(mapped: MappedColumn, value: unknown): ScimValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (mapped.fromColumn) return mapped.fromColumn(value as ColumnValue);
  switch (mapped.type) {
    case "boolean":
      return value === true || value === 1 || value === 1n;
    case "number":
      return Number(value);
    case "string":
      return value instanceof Date ? value.toISOString() : String(value);
  }
}

/** How to turn canonical attributes into a row and a row back into attributes. */
export interface RowMapper {
  /** The mapped columns' values and what is left for the JSON column. */
  rowOf(attributes: ScimObject): RowValues;
  /** The attributes a row holds: the JSON column's, with the mapped columns' values put in place. */
  attributesOf(row: Readonly<Record<string, unknown>>, rest: ScimObject | undefined): ScimObject;
  /** The attributes a write of `attributes` would read back: what the mapping keeps of them. */
  kept(attributes: ScimObject, keepsRest: boolean): ScimObject;
}

/** The mapper of `columns`; `booleans` is how the driver binds a boolean (better-sqlite3: 1/0). */
export function rowMapper(columns: MappedColumns, booleans: "native" | "integer"): RowMapper {
  const attributesOf = (row: Readonly<Record<string, unknown>>, rest: ScimObject | undefined): ScimObject => {
    let attributes: ScimObject = rest ?? {};
    for (const mapped of columns.all) {
      const value = fromColumnValue(mapped, row[mapped.column]);
      if (value !== undefined) attributes = withValue(attributes, mapped.location, value);
    }
    return attributes;
  };
  const rowOf = (attributes: ScimObject): RowValues => {
    const values: Record<string, ColumnValue> = {};
    let rest = attributes;
    for (const mapped of columns.all) {
      values[mapped.column] = toColumnValue(mapped, valueAt(attributes, mapped.location), booleans);
      rest = without(rest, mapped.location);
    }
    return { columns: values, rest };
  };
  return {
    rowOf,
    attributesOf,
    kept(attributes, keepsRest) {
      const { columns: values, rest } = rowOf(attributes);
      const read: Record<string, unknown> = {};
      for (const mapped of columns.all) {
        const value = values[mapped.column];
        // As the driver would return it: booleans bound as integers come back as integers.
        read[mapped.column] = typeof value === "boolean" && booleans === "integer" ? (value ? 1 : 0) : value;
      }
      return attributesOf(read, keepsRest ? rest : undefined);
    },
  };
}
