/**
 * The table store's `RowSource`: where each SCIM path of a filter, sort or cursor is read in the
 * application's row (issue 16). Mapped attributes read their columns, so the application's own
 * indexes serve them; `id` is the primary key; `meta` comes from the mapping's version and time
 * columns or from `scimkit_table_meta` (`table-meta.ts`); a unique
 * attribute's equality is looked up in `scimkit_table_keys`; the other attributes read the JSON
 * column. An attribute the row does not keep is a 400 `invalidFilter` naming it: never a silent
 * scan, never a wrong answer.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import { type ScimError, scimError } from "../../../errors.js";
import type { AttributeDefinition } from "../../../scim/schema/attribute-definition.js";
import type { FilterValue } from "../../../scim/filter/filter-ast.js";
import { formatPath, leafOf, type ResolvedPath } from "../../../scim/schema/resolved-path.js";
import { isUniqueAttribute, uniqueValue } from "../../../scim/schema/unique-value.js";
import { presentCandidate } from "../filter/compile-filter-sql.js";
import type { JsonRef } from "../filter/json-ref.js";
import type { RowSource } from "../filter/row-source.js";
import { jsonSortKeySql, type SortKeySql } from "../filter/sort-sql.js";
import {
  flatMapCandidates,
  jsonCandidates,
  noCandidates,
  oneCandidate,
  textColumnCandidate,
  type SqlCandidate,
  type SqlCandidates,
} from "../filter/sql-candidates.js";
import { anyOf, sqlCondition, type Condition } from "../filter/sql-condition.js";
import type { CompileScope } from "../filter/sql-filter-context.js";
import { foldedColumnEquality } from "./folded-column-equality.js";
import { topLocation, type ChildColumns, type MappedColumn, type MappedColumns } from "./mapped-columns.js";
import { TABLE_KEYS } from "./table-side-tables.js";
import type { IdKind, MemberTableMapping } from "./table-mapping.js";
import type { TableMeta } from "./table-meta.js";

/** What the source needs to know about the table and the request. */
export interface TableRowSourceOptions {
  readonly columns: MappedColumns;
  readonly idColumn: string;
  readonly idKind: IdKind;
  /** The JSON column of unmapped attributes, if the table has one. */
  readonly restColumn?: string;
  readonly orgId: string;
  readonly resourceType: string;
  /** Whether the dialect binds booleans as 1/0 (SQLite). */
  readonly booleans: "native" | "integer";
  /** The child tables of multi-valued attributes. */
  readonly children?: readonly ChildColumns[];
  /** The join table of the rows' members, for a type with members (groups). */
  readonly members?: MemberTableMapping & { readonly memberIdKind: IdKind };
  /** Where the rows' version and times are. */
  readonly meta: TableMeta;
}

/** The 400 for a path the table does not keep (RFC 7644 §3.4.2.2: the filter cannot be evaluated). */
export function notKeptError(path: string, what: "filter" | "sort"): ScimError {
  const use = what === "filter" ? "filtered on" : "sorted by";
  return scimError("invalidFilter", `${path} cannot be ${use}: this service does not keep it in a column`);
}

function convertedError(path: string): ScimError {
  return scimError("invalidFilter", `${path} can only be compared with eq or ne: its column holds a converted value`);
}

/** The row's id as text, as `StoredResource.id` renders it. */
export function idText(scope: CompileScope, idColumn: string, idKind: IdKind): Expression<unknown> {
  const column = sql.ref(`${scope.resource}.${idColumn}`);
  return idKind === "integer" ? sql`cast(${column} as text)` : idKind === "uuid" ? sql`cast(${column} as text)` : column;
}

/**
 * The id column's value for `text`, an id as text: compared with the column itself, so the
 * primary key drives the lookup (a cast of the column would hide it from the planner).
 */
function idFromText(scope: CompileScope, kind: IdKind, text: Expression<unknown>): Expression<unknown> {
  if (kind === "integer") return sql`cast(${text} as integer)`;
  // SQLite keeps a UUID as text; PostgreSQL in a uuid column.
  return kind === "uuid" && scope.dialect.name === "postgres" ? sql`cast(${text} as uuid)` : text;
}

/** An integer id's value when `id` is its canonical decimal text, else undefined (no row has it). */
export function integerId(id: string): number | undefined {
  return /^(0|-?[1-9][0-9]{0,14})$/.test(id) ? Number(id) : undefined;
}

/** A UUID's canonical (lower-case) text, else undefined: PostgreSQL refuses any other text for a uuid. */
export function uuidId(id: string): string | undefined {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) ? id : undefined;
}

/** The value to compare the id column with for the service id `id`, or undefined when no row can have it. */
export function idParameter(id: string, kind: IdKind): string | number | undefined {
  return kind === "integer" ? integerId(id) : kind === "uuid" ? uuidId(id) : id;
}

/** A row's members, one candidate per join-table row: the element `{ value, type: "User" }`. */
function memberCandidates(
  scope: CompileScope,
  members: MemberTableMapping & { readonly memberIdKind: IdKind },
  idColumn: string,
): SqlCandidates {
  return {
    some(test) {
      const alias = scope.alias("m");
      const memberColumn = sql.ref(`${alias}.${members.member}`);
      const member: SqlCandidate = {
        text: () => undefined,
        number: () => undefined,
        boolean: () => undefined,
        isObject: () => true,
        sub: (definition) => {
          if (definition.name === "value") {
            const value = members.memberIdKind === "text" ? memberColumn : sql`cast(${memberColumn} as text)`;
            return oneCandidate(textColumnCandidate(value, "alwaysPresent"));
          }
          if (definition.name === "type") return oneCandidate(textColumnCandidate(sql.val("User"), "alwaysPresent"));
          return noCandidates;
        },
      };
      const condition = test(member);
      if (condition === false) return false;
      const where = condition === true ? sql`` : sql` and ${condition.sql}`;
      return sqlCondition(
        sql<SqlBool>`exists (select 1 from ${sql.table(members.table)} as ${sql.id(alias)} where ${sql.ref(`${alias}.${members.group}`)} = ${sql.ref(`${scope.resource}.${idColumn}`)}${where})`,
        false,
      );
    },
  };
}

/** A child table's rows as the elements of `attribute`: one candidate per row of the owner. */
function childCandidates(scope: CompileScope, child: ChildColumns, idColumn: string, attribute: string): SqlCandidates {
  return {
    some(test) {
      const alias = scope.alias("c");
      const element: SqlCandidate = {
        text: () => undefined,
        number: () => undefined,
        boolean: () => undefined,
        isObject: () => true,
        sub: (definition) => {
          const mapped = child.at(definition.name);
          if (!mapped) throw notKeptError(`${attribute}.${definition.name}`, "filter");
          return oneCandidate(columnCandidate({ ...scope, resource: alias }, mapped, `${attribute}.${definition.name}`));
        },
      };
      const condition = test(element);
      if (condition === false) return false;
      const where = condition === true ? sql`` : sql` and ${condition.sql}`;
      return sqlCondition(
        sql<SqlBool>`exists (select 1 from ${sql.table(child.mapping.table)} as ${sql.id(alias)} where ${sql.ref(`${alias}.${child.mapping.owner}`)} = ${sql.ref(
          `${scope.resource}.${idColumn}`,
        )}${where})`,
        false,
      );
    },
  };
}

/**
 * `sortKeyOf` for an attribute in a child table: the primary element's (else the first element's)
 * sub-attribute — `value` when the path names none (RFC 7644 §3.4.2.3).
 */
function childSortKey(
  scope: CompileScope,
  child: ChildColumns,
  idColumn: string,
  path: ResolvedPath,
  name: string,
): SortKeySql | undefined {
  const sub = path.subAttribute ?? path.attribute.subAttributes?.find((definition) => definition.name === "value");
  if (!sub) return undefined;
  const mapped = child.at(sub.name);
  if (!mapped || mapped.toColumn) throw notKeptError(name, "sort");
  const alias = scope.alias("s");
  const column = sql.ref(`${alias}.${mapped.column}`);
  const key = mapped.type === "string" && !sub.caseExact ? scope.dialect.lower(column) : column;
  const primary = child.at("primary");
  const first = primary
    ? sql`case when ${sql.ref(`${alias}.${primary.column}`)} = ${scope.dialect.bindBoolean(true)} then 0 else 1 end, `
    : sql``;
  const expression = sql`(select ${key} from ${sql.table(child.mapping.table)} as ${sql.id(alias)} where ${sql.ref(`${alias}.${child.mapping.owner}`)} = ${sql.ref(
    `${scope.resource}.${idColumn}`,
  )} order by ${first}${sql.ref(`${alias}.${child.mapping.position}`)} limit 1)`;
  return { expression, type: mapped.type };
}

function columnCandidate(scope: CompileScope, mapped: MappedColumn, path: string): SqlCandidate {
  const column = sql.ref(`${scope.resource}.${mapped.column}`);
  const value = { sql: column, nullable: true };
  const refuse = (): never => {
    throw convertedError(path);
  };
  const converted = mapped.toColumn !== undefined;
  return {
    text: () => (converted ? refuse() : mapped.type === "string" ? value : undefined),
    number: () => (converted ? refuse() : mapped.type === "number" ? value : undefined),
    boolean: () => (converted ? refuse() : mapped.type === "boolean" ? value : undefined),
    isObject: () => false,
    sub: () => noCandidates,
  };
}

/** The table store's row source for one request. */
export function tableRowSource(options: TableRowSourceOptions): RowSource {
  const { columns } = options;
  const { meta } = options;
  const time = (scope: CompileScope, name: "created" | "lastModified"): Expression<unknown> =>
    name === "created" ? meta.created(scope.resource) : meta.lastModified(scope.resource);
  const version = (scope: CompileScope): Expression<unknown> =>
    scope.dialect.concat([sql.lit('W/"'), meta.version(scope.resource), sql.lit('"')]);

  const restRef = (scope: CompileScope, location: readonly string[], path: string, what: "filter" | "sort"): JsonRef => {
    if (!options.restColumn) throw notKeptError(path, what);
    return { base: { kind: "document", document: sql.ref(`${scope.resource}.${options.restColumn}`) }, path: location };
  };

  /** The values of sub-attribute `definition` of a complex attribute at `location` mapped in part. */
  const subCandidates = (
    scope: CompileScope,
    location: readonly string[],
    definition: AttributeDefinition,
    path: string,
  ): SqlCandidates => {
    const sub = [...location, definition.name];
    const mapped = columns.at(sub);
    if (mapped) return oneCandidate(columnCandidate(scope, mapped, `${path}.${definition.name}`));
    return jsonCandidates(restRef(scope, sub, `${path}.${definition.name}`, "filter"), definition, scope);
  };

  const metaCandidate = (scope: CompileScope): SqlCandidate => ({
    text: () => undefined,
    number: () => undefined,
    boolean: () => undefined,
    isObject: () => true,
    sub: (definition) => {
      switch (definition.name) {
        case "resourceType":
          return oneCandidate(textColumnCandidate(sql.val(options.resourceType), "alwaysPresent"));
        case "created":
        case "lastModified":
          return oneCandidate(textColumnCandidate(time(scope, definition.name), "nullable"));
        case "version":
          return oneCandidate(textColumnCandidate(version(scope), "alwaysPresent"));
        default:
          return noCandidates;
      }
    },
  });

  const topCandidates = (path: ResolvedPath, scope: CompileScope): SqlCandidates => {
    if (!path.extension) {
      switch (path.attribute.name) {
        case "id":
          return oneCandidate(textColumnCandidate(idText(scope, options.idColumn, options.idKind), "alwaysPresent"));
        case "meta":
          return oneCandidate(metaCandidate(scope));
        case "members":
          // Users carry no member list (`CreateRequest.members`).
          return options.members ? memberCandidates(scope, options.members, options.idColumn) : noCandidates;
      }
    }
    const child = path.extension ? undefined : options.children?.find((candidate) => candidate.attribute === path.attribute.name);
    if (child) return childCandidates(scope, child, options.idColumn, path.attribute.name);
    const location = topLocation(path);
    const name = path.extension ? `${path.schema}:${path.attribute.name}` : path.attribute.name;
    const mapped = columns.at(location);
    if (mapped) return oneCandidate(columnCandidate(scope, mapped, name));
    if (columns.hasMappedChildren(location) && !path.attribute.multiValued) {
      // Part of it in columns, part in the JSON column: an object whose sub-attributes say where.
      const element: SqlCandidate = {
        text: () => undefined,
        number: () => undefined,
        boolean: () => undefined,
        // It is an object exactly when one of its sub-attributes has a value (canonical
        // attributes hold no empty objects).
        isObject: () =>
          anyOf(
            (path.attribute.subAttributes ?? []).map((sub) =>
              subCandidates(scope, location, sub, name).some((c) => presentCandidate(scope, c, sub)),
            ),
          ),
        sub: (definition) => subCandidates(scope, location, definition, name),
      };
      return oneCandidate(element);
    }
    return jsonCandidates(restRef(scope, location, formatPath(path), "filter"), path.attribute, scope);
  };

  return {
    candidates(path, scope) {
      const top = topCandidates(path, scope);
      const sub = path.subAttribute;
      return sub ? flatMapCandidates(top, (candidate) => candidate.sub(sub)) : top;
    },

    indexed(path, value, scope) {
      if (path.subAttribute || typeof value !== "string") return convertedEquality(path, value, scope);
      if (!path.extension && path.attribute.name === "id") {
        const parameter = idParameter(value, options.idKind);
        if (parameter === undefined) return false;
        return sqlCondition(sql<SqlBool>`${sql.ref(`${scope.resource}.${options.idColumn}`)} = ${sql.val(parameter)}`, false);
      }
      if (isUniqueAttribute(path.attribute)) {
        const key = uniqueValue(value, path.attribute.caseExact);
        // `scimkit_table_keys` holds exactly `uniqueKeysOf(attributes)` (NFC, lower-cased unless
        // caseExact), so the lookup matches what `matchesFilter` matches, through its primary key.
        // The key's primary key names at most one holder: a scalar subquery, which both planners
        // evaluate once and then look the row up by its primary key (also inside an OR).
        const keys = sql<SqlBool>`${sql.ref(`${scope.resource}.${options.idColumn}`)} = (select ${idFromText(scope, options.idKind, sql.ref("k.id"))} from ${sql.table(TABLE_KEYS)} as k where k.org_id = ${sql.val(
          options.orgId,
        )} and k.resource_type = ${sql.val(options.resourceType)} and k.attribute = ${sql.val(formatPath(path))} and k.value = ${sql.val(
          key,
        )})`;
        const mapped = columns.at(topLocation(path));
        if (!mapped || mapped.toColumn || mapped.type !== "string") return sqlCondition(keys, true);
        // Rows the application wrote itself have no keys: their column, folded as the key is, finds
        // them in any case (an index on the folded column serves it: `foldedColumnEquality`).
        const column = sql.ref(`${scope.resource}.${mapped.column}`);
        const folded = foldedColumnEquality(scope.dialect, column, key, path.attribute.caseExact);
        return anyOf([sqlCondition(keys, true), sqlCondition(folded, true)]);
      }
      const mapped = columns.at(topLocation(path));
      // caseExact text in a plain column (`externalId`): `=` as is, so the column's index serves it.
      if (mapped && !mapped.toColumn && mapped.type === "string" && path.attribute.caseExact && path.attribute.type === "string") {
        return sqlCondition(sql<SqlBool>`${sql.ref(`${scope.resource}.${mapped.column}`)} = ${sql.val(value)}`, true);
      }
      return convertedEquality(path, value, scope);
    },

    sortKey(path, scope) {
      const name = formatPath(path);
      const leaf = leafOf(path);
      if (!path.extension) {
        if (path.attribute.name === "id") return { expression: idText(scope, options.idColumn, options.idKind), type: "string" };
        if (path.attribute.name === "meta") {
          const sub = path.subAttribute?.name;
          if (sub === "created" || sub === "lastModified") return { expression: time(scope, sub), type: "string" };
          if (sub === "version") return { expression: version(scope), type: "string" };
          if (sub === "resourceType") return { expression: sql.val(options.resourceType), type: "string" };
          return undefined;
        }
        // The join table keeps no order of addition, so "the first member" is not known.
        if (path.attribute.name === "members") throw notKeptError(name, "sort");
      }
      const child = path.extension ? undefined : options.children?.find((candidate) => candidate.attribute === path.attribute.name);
      if (child) return childSortKey(scope, child, options.idColumn, path, name);
      const top = topLocation(path);
      const location = path.subAttribute ? [...top, path.subAttribute.name] : top;
      const mapped = columns.at(location);
      if (mapped) {
        if (mapped.toColumn) throw notKeptError(name, "sort");
        const column = sql.ref(`${scope.resource}.${mapped.column}`);
        if (mapped.type === "string") return { expression: leaf.caseExact ? column : scope.dialect.lower(column), type: "string" };
        return { expression: column, type: mapped.type };
      }
      return jsonSortKeySql(scope, path, restRef(scope, top, name, "sort"));
    },

    id: (scope) => idText(scope, options.idColumn, options.idKind),
  };

  /** `eq` on a converted column: the filter's value converted, compared with `=`. */
  function convertedEquality(path: ResolvedPath, value: FilterValue, scope: CompileScope): Condition | undefined {
    const top = topLocation(path);
    const mapped = columns.at(path.subAttribute ? [...top, path.subAttribute.name] : top);
    if (!mapped?.toColumn || value === null || typeof value === "object") return undefined;
    const converted = mapped.toColumn(value);
    return sqlCondition(sql<SqlBool>`${sql.ref(`${scope.resource}.${mapped.column}`)} = ${sql.val(converted)}`, true);
  }
}
