/**
 * What a write puts into the application's row and its child tables: the mapped columns, the
 * rest of the attributes as JSON, and the `toRow` hook's changes.
 */
import type { Kysely } from "kysely";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { replaceChildRows } from "./child-table.js";
import type { ColumnValue } from "./table-mapping.js";
import type { TableStoreState, TypeTable } from "./table-store-state.js";

/** The row's columns for `attributes`, through the mapping and the `toRow` hook. */
export async function rowValues(
  state: TableStoreState,
  trx: Kysely<SqlStoreDatabase>,
  type: TypeTable,
  attributes: ScimObject,
  fixed: Readonly<Record<string, ColumnValue>>,
): Promise<Record<string, ColumnValue>> {
  const { columns, rest } = type.mapper.rowOf(attributes);
  const restColumn = type.mapping.rest?.column;
  const row: Record<string, ColumnValue> = {
    ...columns,
    ...(restColumn === undefined ? {} : { [restColumn]: state.dialect.toJson(rest) as ColumnValue }),
    ...fixed,
  };
  return type.mapping.hooks?.toRow ? { ...(await type.mapping.hooks.toRow(row, attributes, trx)) } : row;
}

/** Makes the child tables hold the elements of `attributes` for row `id`. */
export async function writeChildren(
  trx: Kysely<SqlStoreDatabase>,
  type: TypeTable,
  id: string | number,
  attributes: ScimObject,
): Promise<void> {
  if (type.children.length === 0) return;
  const { children } = type.mapper.rowOf(attributes);
  for (const child of type.children) await replaceChildRows(trx, child, id, children[child.attribute] ?? []);
}
