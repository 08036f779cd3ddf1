/**
 * The application: its own routes read its own tables, as they always did, and the SCIM router
 * writes into the same tables — so a user the identity provider creates is in `GET /app/…/users`
 * at once, with no copy to keep in step.
 */
import express, { type Express } from "express";
import { sql, type Kysely } from "kysely";
import { createScimRouter, type ScimRouterOptions } from "scimkit";
import { sqliteDialect, type SqlDialect } from "scimkit/sql";
import { scimStore } from "./scim-store.js";

interface AppUser {
  readonly id: number;
  readonly email: string;
  readonly first_name: string | null;
  readonly is_active: number | boolean;
  readonly teams: string | null;
}

/**
 * The application with SCIM mounted at `/scim/Organizations/:orgId/v2`; `auth` and the rest as the
 * router takes them. On SQLite by default; `postgresDialect` for its tables on PostgreSQL.
 */
export async function createApp<DB>(
  db: Kysely<DB>,
  options: Omit<ScimRouterOptions, "store">,
  dialect: SqlDialect = sqliteDialect,
): Promise<Express> {
  const app = express();
  const teamNames = dialect.name === "sqlite" ? sql`group_concat(t.name)` : sql`string_agg(t.name, ',')`;
  // The application's own route, written long before SCIM.
  app.get("/app/:orgId/users", async (request, response) => {
    const users = await sql<AppUser>`select u.id, u.email, u.first_name, u.is_active, ${teamNames} as teams
      from users u left join team_members m on m.user_id = u.id left join teams t on t.id = m.team_id
      where u.org_id = ${request.params.orgId} group by u.id order by u.id`.execute(db);
    response.json(users.rows.map((user) => ({ ...user, teams: user.teams ? user.teams.split(",").sort() : [] })));
  });
  app.use("/scim/Organizations/:orgId/v2", createScimRouter({ ...options, store: await scimStore(db, dialect) }));
  return app;
}
