/**
 * The whole SCIM integration of the application: which column holds which SCIM attribute.
 */
import type { Kysely } from "kysely";
import { sqliteDialect, tableStore, type SqlDialect, type TableStore } from "scimkit/sql";

export function scimStore<DB>(db: Kysely<DB>, dialect: SqlDialect = sqliteDialect): Promise<TableStore> {
  return tableStore({
    kysely: db,
    dialect,
    organization: { column: "org_id" },
    users: {
      table: "users",
      id: { column: "id", kind: "integer" },
      columns: {
        userName: "email",
        externalId: "scim_external_id",
        "name.givenName": "first_name",
        "name.familyName": "last_name",
        active: { column: "is_active", type: "boolean" },
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department": "department",
      },
      rest: { column: "scim_attributes" },
    },
    groups: {
      table: "teams",
      id: { column: "id", kind: "integer" },
      columns: { displayName: "name", externalId: "scim_external_id" },
      rest: { column: "scim_attributes" },
      members: { table: "team_members", group: "team_id", member: "user_id" },
    },
  });
}
