/**
 * Reading resources from the application's table: a row and its child rows as a stored resource,
 * a page of rows with their child rows in one query per child table, and one row by id through a
 * statement compiled once per table — a GET is the request identity providers make most.
 */
import { CompiledQuery, type Kysely } from "kysely";
import type { StoredResource, StoreScope } from "../../resource-store.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { readChildRows } from "./child-table.js";
import { byId, type Row, selectRows } from "./table-sql.js";
import type { SlottedStatement, TableStoreState, TypeTable } from "./table-store-state.js";

/** The time a resource the application wrote itself, without a `scimkit_table_meta` row, reports. */
export const NEVER_WRITTEN = new Date(0).toISOString();

/** Placeholders of `readOne`'s compiled statement, replaced by position: no constant of a mapping equals them. */
const ORG_SLOT = "\u0000scimkit:org";
const TYPE_SLOT = "\u0000scimkit:type";
const ID_SLOT = "\u0000scimkit:id";

function resourceOf(
  state: TableStoreState,
  type: TypeTable,
  row: Row,
  children?: Readonly<Record<string, readonly Row[]>>,
): StoredResource {
  const restColumn = type.mapping.rest?.column;
  const stored = restColumn === undefined ? null : row[restColumn];
  const rest = stored === null || stored === undefined ? undefined : state.dialect.fromJson(stored);
  let attributes = type.mapper.attributesOf(row, rest, children);
  if (type.mapping.hooks?.fromRow) attributes = type.mapping.hooks.fromRow(attributes, row);
  return {
    id: String(row[type.mapping.id.column]),
    version: String(row["scimkit_version"] ?? 0),
    created: typeof row["scimkit_created"] === "string" ? row["scimkit_created"] : NEVER_WRITTEN,
    lastModified: typeof row["scimkit_last_modified"] === "string" ? row["scimkit_last_modified"] : NEVER_WRITTEN,
    attributes,
  };
}

/** The resources of `rows`, with the rows of their child tables read in one query per table. */
export async function resourcesOf(
  state: TableStoreState,
  on: Kysely<SqlStoreDatabase>,
  type: TypeTable,
  rows: readonly Row[],
): Promise<StoredResource[]> {
  if (type.children.length === 0 || rows.length === 0) return rows.map((row) => resourceOf(state, type, row));
  const owners = rows.map((row) => row[type.mapping.id.column] as string | number);
  const byChild = await Promise.all(
    type.children.map(async (child) => [child.attribute, await readChildRows(on, state.dialect, child, owners)] as const),
  );
  return rows.map((row) => {
    const key = String(row[type.mapping.id.column]);
    return resourceOf(state, type, row, Object.fromEntries(byChild.map(([attribute, found]) => [attribute, found.get(key) ?? []])));
  });
}

/**
 * `readOne`'s statement, compiled once per type: building its SQL anew each time cost about as
 * much as SQLite takes to run it. Compiled with placeholder values, each parameter is then the
 * request's organization, type or id, or a constant.
 */
function byIdStatement(state: TableStoreState, type: TypeTable): SlottedStatement {
  let statement = state.byIdStatements.get(type);
  if (statement === undefined) {
    const compiled = selectRows(state, type, { orgId: ORG_SLOT, resourceType: TYPE_SLOT }, byId(type, ID_SLOT)).compile(state.db);
    statement = { text: compiled.sql, slots: compiled.parameters };
    state.byIdStatements.set(type, statement);
  }
  return statement;
}

/** The resource of row `id`, without members; undefined when the organization has none. */
export async function readOne(
  state: TableStoreState,
  on: Kysely<SqlStoreDatabase>,
  type: TypeTable,
  scope: StoreScope,
  id: string | number,
): Promise<StoredResource | undefined> {
  const statement = byIdStatement(state, type);
  const parameters = statement.slots.map((slot) =>
    slot === ORG_SLOT ? scope.orgId : slot === TYPE_SLOT ? scope.resourceType : slot === ID_SLOT ? id : slot,
  );
  const rows = (await on.executeQuery<Row>(CompiledQuery.raw(statement.text, parameters))).rows;
  return (await resourcesOf(state, on, type, rows))[0];
}

/** The resource with its members, when the request asks for them and its type has a member list. */
export async function withMembers(
  trx: Kysely<SqlStoreDatabase>,
  type: TypeTable,
  resource: StoredResource,
  wanted: boolean,
): Promise<StoredResource> {
  if (!wanted || !type.members) return resource;
  const members = (await type.members.read(trx, [resource.id])).get(resource.id) ?? [];
  return { ...resource, members };
}
