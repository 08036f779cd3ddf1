/**
 * What a table store holds for its life (issue 16): the database and dialect, the organization
 * mapping, and per served resource type its table — mapped columns, row mapper, where its version
 * and times are, child tables, member list — with the compiled statement of its read by id. Built
 * once by `tableStoreState`; every operation of the store is a function of it.
 */
import type { Kysely } from "kysely";
import { scimError, type ScimError } from "../../../errors.js";
import { rememberedPositions, type RememberedPositions } from "../../remembered-positions.js";
import type { StoreOptions } from "../../store-options.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { childColumns, mappedColumns, type ChildColumns } from "./mapped-columns.js";
import { memberTable, type MemberOperations } from "./member-table.js";
import type { GroupTableMapping, OrganizationMapping, TableMapping } from "./table-mapping.js";
import { tableMeta, type TableMeta } from "./table-meta.js";
import { idParameter } from "./table-row-source.js";
import { rowMapper } from "./table-row.js";

/** What the table store serves: the organization mapping and one table per resource type. */
export interface TableResourceStoreOptions extends StoreOptions {
  readonly organization: OrganizationMapping;
  /** The `User` resource type's table. */
  readonly users: TableMapping;
  /** The `Group` resource type's table and its members; absent: groups are not kept. */
  readonly groups?: GroupTableMapping;
  /**
   * The resource types whose tables keep list generations by the application's triggers
   * (`generationTriggerTypes`): their `startIndex` walks follow remembered positions. Default none:
   * every index page by OFFSET.
   */
  readonly generations?: ReadonlySet<string>;
}

/** One served resource type's table. */
export interface TypeTable {
  /** The resource type's id: `User` or `Group`. */
  readonly resourceType: string;
  /** The application's mapping of it. */
  readonly mapping: TableMapping;
  /** Its mapped columns. */
  readonly columns: ReturnType<typeof mappedColumns>;
  /** Attributes to a row and back. */
  readonly mapper: ReturnType<typeof rowMapper>;
  /** Where its version and times are. */
  readonly meta: TableMeta;
  /** Multi-valued attributes in child tables. */
  readonly children: readonly ChildColumns[];
  /** The member list's operations, for a type with members. */
  readonly members?: MemberOperations;
  /** The member list's join table, for a type with members. */
  readonly memberMapping?: GroupTableMapping["members"];
}

/** A compiled statement whose parameters are filled in per call (`readOne`). */
export interface SlottedStatement {
  /** The SQL text. */
  readonly text: string;
  /** Its parameters: placeholders of the request's values, or constants. */
  readonly slots: readonly unknown[];
}

/** The state of one table store. */
export interface TableStoreState {
  /** The application's database. */
  readonly db: Kysely<SqlStoreDatabase>;
  /** Its dialect. */
  readonly dialect: SqlDialect;
  /** How the database stores booleans. */
  readonly booleans: "integer" | "native";
  /** The clock of a delete without a time of its own. */
  readonly now: () => string;
  /** Which rows belong to which organization. */
  readonly organization: OrganizationMapping;
  /** The options it was built from. */
  readonly options: TableResourceStoreOptions;
  /** The `User` table. */
  readonly users: TypeTable;
  /** The `Group` table, when groups are kept. */
  readonly groups: TypeTable | undefined;
  /** The served tables by resource type. */
  readonly tables: ReadonlyMap<string, TypeTable>;
  /** `readOne`'s statement per table, compiled on first use. */
  readonly byIdStatements: Map<TypeTable, SlottedStatement>;
  /** The resource types whose list generations are kept (`TableResourceStoreOptions.generations`). */
  readonly generations: ReadonlySet<string>;
  /** Where the pages of their `startIndex` walks ended (issue 29). */
  readonly positions: RememberedPositions;
}

/** The state of a table store over `db` serving `options`' tables. */
export function tableStoreState(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect, options: TableResourceStoreOptions): TableStoreState {
  const booleans = dialect.name === "sqlite" ? "integer" : "native";
  const typeTable = (resourceType: string, mapping: TableMapping) => {
    const columns = mappedColumns(mapping);
    const children = childColumns(mapping);
    return { resourceType, mapping, columns, children, mapper: rowMapper(columns, booleans, children), meta: tableMeta(mapping, dialect) };
  };
  const users: TypeTable = typeTable("User", options.users);
  const { organization } = options;
  const tables = new Map<string, TypeTable>([["User", users]]);
  const groupMapping = options.groups;
  if (groupMapping) {
    tables.set("Group", {
      ...typeTable("Group", groupMapping),
      memberMapping: groupMapping.members,
      members: memberTable({
        mapping: groupMapping.members,
        groupIdKind: groupMapping.id.kind,
        users: {
          table: options.users.table,
          id: options.users.id.column,
          idKind: options.users.id.kind,
          ...("column" in organization ? { orgColumn: organization.column } : {}),
        },
        dialect,
      }),
    });
  }
  return {
    db,
    dialect,
    booleans,
    now: options.now ?? (() => new Date().toISOString()),
    organization,
    options,
    users,
    groups: tables.get("Group"),
    tables,
    byIdStatements: new Map(),
    generations: options.generations ?? new Set(),
    positions: rememberedPositions(),
  };
}

/** Whether a request of organization `orgId` can see rows at all (a single-organization app keeps one). */
export function servesOrg(state: TableStoreState, orgId: string): boolean {
  return !("fixed" in state.organization) || state.organization.fixed === orgId;
}

/** The typed id parameter of a request, or undefined when no row can have it. */
export function idOf(type: TypeTable, id: string): string | number | undefined {
  return idParameter(id, type.mapping.id.kind);
}

/** The 501 of a resource type (or organization, or member list) the store does not keep. */
export function notServed(resourceType: string): ScimError {
  // RFC 7644 §3.12: 501 for an operation the service does not support.
  return scimError("notImplemented", `This service does not keep ${resourceType} resources`);
}
