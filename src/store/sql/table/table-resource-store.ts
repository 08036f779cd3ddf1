/**
 * The `ResourceStore` over the application's own tables (issue 16, architecture §7.6): each write
 * is one transaction over the application's row and the two side tables (`table-side-tables.ts`),
 * so all of it happens, or (on a 409, 412 or a hook's error) none of it. Filters, sorts and cursors
 * compile to SQL over the mapped columns through the SQL store's compilers (`tableRowSource`).
 * Each operation is a function of the store's state (`tableStoreState`) in its own file.
 */
import type { Kysely } from "kysely";
import type { ResourceStore } from "../../resource-store.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { createInTable } from "./table-create.js";
import { deleteFromTable, deleteTableOrganization } from "./table-delete.js";
import { listTable } from "./table-list.js";
import { readOne, withMembers } from "./table-read.js";
import { withTranslatedErrors } from "../with-translated-errors.js";
import { idOf, servesOrg, type TableResourceStoreOptions, tableStoreState } from "./table-store-state.js";
import { updateInTable } from "./table-update.js";

/**
 * A `ResourceStore` over `db`, whose side tables exist (`createSideTables`). Writers of one row
 * exclude each other with the dialect's row lock (PostgreSQL) or write lock (SQLite).
 *
 * @example
 * const store = tableResourceStore(db, sqliteDialect, { organization: { column: "org_id" }, users });
 */
export function tableResourceStore(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect, options: TableResourceStoreOptions): ResourceStore {
  const state = tableStoreState(db, dialect, options);
  return {
    capabilities: {
      sort: true,
      cursor: true,
      groups: state.groups !== undefined,
      // Two tables number their rows apart, so an integer or text id may name a user and a team.
      idsUniqueAcrossTypes: options.groups === undefined || (options.users.id.kind === "uuid" && options.groups.id.kind === "uuid"),
    },
    ...("column" in options.organization ? { deleteOrganization: (orgId: string) => deleteTableOrganization(state, orgId) } : {}),
    create: (request) => createInTable(state, request),

    get(request) {
      const type = state.tables.get(request.resourceType);
      const id = type && idOf(type, request.id);
      if (!type || id === undefined || !servesOrg(state, request.orgId)) return Promise.resolve(undefined);
      if (!request.members || !type.members) return withTranslatedErrors(state.dialect, () => readOne(state, db, type, request, id));
      return withTranslatedErrors(state.dialect, () =>
        dialect.readTransaction(db, async (trx) => {
          const resource = await readOne(state, trx, type, request, id);
          return resource && withMembers(trx, type, resource, true);
        }),
      );
    },

    list: (request) => listTable(state, request),
    update: (request) => updateInTable(state, request),
    delete: (request) => deleteFromTable(state, request),
  };
}
