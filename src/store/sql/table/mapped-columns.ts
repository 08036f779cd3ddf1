/**
 * The column mapping of one table, checked once and indexed by where each value sits in the
 * canonical attributes: `["userName"]`, `["name", "givenName"]`, `["urn:…:User", "department"]`.
 */
import type { ResolvedPath } from "../../../scim/schema/resolved-path.js";
import type { ChildTableMapping, ColumnMapping, TableMapping } from "./table-mapping.js";

/** One mapped attribute. */
export interface MappedColumn extends ColumnMapping {
  /** The keys leading to the value in the attributes (an extension's URN first). */
  readonly location: readonly string[];
  /** The SCIM type the column is read back as. */
  readonly type: "string" | "number" | "boolean";
}

/** A table's columns by location, and the locations of complex attributes mapped in part. */
export interface MappedColumns {
  /** Every mapped attribute, in the mapping's order. */
  readonly all: readonly MappedColumn[];
  /** The mapped attribute at exactly `location`. */
  at(location: readonly string[]): MappedColumn | undefined;
  /** Whether some sub-attribute of the attribute at `location` has a column. */
  hasMappedChildren(location: readonly string[]): boolean;
}

const key = (location: readonly string[]): string => JSON.stringify(location);

/**
 * Where a mapping key puts its value: an extension attribute's URN (RFC 7643 §3.3) ends at the
 * last colon; the dotted rest is the attribute and at most one sub-attribute.
 */
export function locationOfKey(path: string): readonly string[] {
  const colon = path.startsWith("urn:") ? path.lastIndexOf(":") : -1;
  const local = path.slice(colon + 1).split(".");
  if (local.length > 2 || local.some((part) => part === "")) {
    throw new Error(`tableStore: "${path}" is not an attribute or sub-attribute path`);
  }
  return colon >= 0 ? [path.slice(0, colon), ...local] : local;
}

/** Where a resolved path's top-level attribute sits in the attributes. */
export function topLocation(path: ResolvedPath): readonly string[] {
  return path.extension ? [path.schema, path.attribute.name] : [path.attribute.name];
}

const RESERVED = new Set(["id", "meta", "members", "schemas"]);

/** The checked columns of `mapping`; throws on a mapping that cannot work, at start, not at a request. */
export function mappedColumns(mapping: TableMapping): MappedColumns {
  const all: MappedColumn[] = [];
  const byLocation = new Map<string, MappedColumn>();
  const parents = new Set<string>();
  const columns = new Set<string>([mapping.id.column, ...(mapping.rest ? [mapping.rest.column] : [])]);
  // The version and times are the store's to write: no attribute may share their columns.
  const { created, lastModified } = mapping.timestamps ?? {};
  for (const column of [created, lastModified, mapping.version?.column]) {
    if (column === undefined) continue;
    if (columns.has(column)) throw new Error(`tableStore: column ${column} of ${mapping.table} is mapped twice`);
    columns.add(column);
  }
  for (const [path, target] of Object.entries(mapping.columns)) {
    const location = locationOfKey(path);
    if (RESERVED.has(location[0] ?? "")) {
      throw new Error(`tableStore: ${path} is kept by the store itself and cannot be mapped to a column`);
    }
    const column: MappedColumn =
      typeof target === "string" ? { column: target, location, type: "string" } : { type: "string", ...target, location };
    if (columns.has(column.column)) throw new Error(`tableStore: column ${column.column} of ${mapping.table} is mapped twice`);
    columns.add(column.column);
    all.push(column);
    byLocation.set(key(location), column);
    if (location.length > (location[0]?.startsWith("urn:") ? 2 : 1)) parents.add(key(location.slice(0, -1)));
  }
  for (const parent of parents) {
    if (byLocation.has(parent)) throw new Error(`tableStore: ${parent} is mapped both whole and by sub-attribute`);
  }
  return {
    all,
    at: (location) => byLocation.get(key(location)),
    hasMappedChildren: (location) => parents.has(key(location)),
  };
}

/** A child table's checked columns: each sub-attribute's location is its name alone. */
export interface ChildColumns {
  /** The multi-valued attribute it holds (`emails`). */
  readonly attribute: string;
  readonly mapping: ChildTableMapping;
  readonly columns: readonly MappedColumn[];
  /** The sub-attribute `name`'s column. */
  at(name: string): MappedColumn | undefined;
}

/** The checked child tables of `mapping`. */
export function childColumns(mapping: TableMapping): readonly ChildColumns[] {
  return Object.entries(mapping.children ?? {}).map(([attribute, child]) => {
    if (attribute.includes(".") || attribute.includes(":") || RESERVED.has(attribute)) {
      throw new Error(`tableStore: ${attribute} cannot be kept in a child table: name a multi-valued core attribute such as emails`);
    }
    if (Object.hasOwn(mapping.columns, attribute))
      throw new Error(`tableStore: ${attribute} is mapped both to a column and to a child table`);
    const columns: MappedColumn[] = Object.entries(child.columns).map(([name, target]) =>
      typeof target === "string" ? { column: target, location: [name], type: "string" } : { type: "string", ...target, location: [name] },
    );
    const byName = new Map(columns.map((column) => [column.location[0] ?? "", column]));
    return { attribute, mapping: child, columns, at: (name) => byName.get(name) };
  });
}
