/**
 * Canonical attributes to the application's row and back, through the column mapping: mapped
 * values to their columns (converted where the mapping says), everything else to the JSON column
 * or, without one, nowhere (spec §1, §2.3: attributes the service does not synchronize).
 */
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import type { ChildColumns, MappedColumn, MappedColumns } from "./mapped-columns.js";
import type { ColumnValue, ScimValue } from "./table-mapping.js";

/** One element of a child table: sub-attribute columns by column name. */
export type ChildRow = Readonly<Record<string, ColumnValue>>;

/** The columns a write sets from the attributes, and the attributes left for the JSON column. */
export interface RowValues {
  /** Column name → value, for every mapped column (NULL for an absent attribute). */
  readonly columns: Readonly<Record<string, ColumnValue>>;
  /** Attribute name → the rows of its child table, in order. */
  readonly children: Readonly<Record<string, readonly ChildRow[]>>;
  /** The attributes no column holds. */
  readonly rest: ScimObject;
}

function isObject(value: unknown): value is ScimObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at `location` in `attributes` (`MappedColumn.location`), or undefined. */
export function valueAt(attributes: ScimObject, location: readonly string[]): unknown {
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
export function toColumnValue(mapped: MappedColumn, value: unknown, booleans: "native" | "integer"): ColumnValue {
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
export function fromColumnValue(mapped: MappedColumn, value: unknown): ScimValue | undefined {
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
  /**
   * The attributes a row holds: the JSON column's, with the mapped columns' values put in place,
   * and the child tables' rows (`children`, in order) as the elements of their attributes.
   */
  attributesOf(
    row: Readonly<Record<string, unknown>>,
    rest: ScimObject | undefined,
    children?: Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>>,
  ): ScimObject;
  /** The attributes a write of `attributes` would read back: what the mapping keeps of them. */
  kept(attributes: ScimObject, keepsRest: boolean): ScimObject;
}

/** A child table's element as canonical attributes hold it, or undefined when no column has a value. */
function elementOf(child: ChildColumns, row: Readonly<Record<string, unknown>>): ScimObject | undefined {
  const element: Record<string, unknown> = {};
  for (const mapped of child.columns) {
    const value = fromColumnValue(mapped, row[mapped.column]);
    if (value !== undefined) element[mapped.location[0] ?? ""] = value;
  }
  return Object.keys(element).length > 0 ? element : undefined;
}

/** How a value bound for a column reads back: booleans bound as integers come back as integers. */
function asRead(value: ColumnValue, booleans: "native" | "integer"): unknown {
  return typeof value === "boolean" && booleans === "integer" ? (value ? 1 : 0) : value;
}

/** The mapper of `columns` and `children`; `booleans` is how the driver binds a boolean (better-sqlite3: 1/0). */
export function rowMapper(columns: MappedColumns, booleans: "native" | "integer", children: readonly ChildColumns[] = []): RowMapper {
  const attributesOf = (
    row: Readonly<Record<string, unknown>>,
    rest: ScimObject | undefined,
    rows?: Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>>,
  ): ScimObject => {
    let attributes: ScimObject = rest ?? {};
    for (const mapped of columns.all) {
      const value = fromColumnValue(mapped, row[mapped.column]);
      if (value !== undefined) attributes = withValue(attributes, mapped.location, value);
    }
    for (const child of children) {
      const elements = (rows?.[child.attribute] ?? []).flatMap((element) => elementOf(child, element) ?? []);
      if (elements.length > 0) attributes = { ...attributes, [child.attribute]: elements };
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
    const childRows: Record<string, ChildRow[]> = {};
    for (const child of children) {
      const elements = attributes[child.attribute];
      rest = without(rest, [child.attribute]);
      childRows[child.attribute] = (Array.isArray(elements) ? elements : []).flatMap((element) => {
        if (!isObject(element)) return [];
        const row: Record<string, ColumnValue> = {};
        for (const mapped of child.columns) row[mapped.column] = toColumnValue(mapped, element[mapped.location[0] ?? ""], booleans);
        // An element none of whose sub-attributes has a column is not kept (spec §2.3).
        return Object.values(row).some((value) => value !== null) ? [row] : [];
      });
    }
    return { columns: values, children: childRows, rest };
  };
  return {
    rowOf,
    attributesOf,
    kept(attributes, keepsRest) {
      const { columns: values, children: childRows, rest } = rowOf(attributes);
      const read: Record<string, unknown> = {};
      for (const mapped of columns.all) read[mapped.column] = asRead(values[mapped.column] ?? null, booleans);
      const readChildren: Record<string, Readonly<Record<string, unknown>>[]> = {};
      for (const [name, rows] of Object.entries(childRows)) {
        readChildren[name] = rows.map((row) =>
          Object.fromEntries(Object.entries(row).map(([column, value]) => [column, asRead(value, booleans)])),
        );
      }
      return attributesOf(read, keepsRest ? rest : undefined, readChildren);
    },
  };
}
