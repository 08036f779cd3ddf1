/**
 * The application's own migration, as it was before SCIM: users with integer ids, teams and their
 * members — plus the two nullable columns it adds for SCIM (`scim_external_id`, the identity
 * provider's id for the row, RFC 7643 §3.1; `scim_attributes`, JSON for the attributes the
 * application has no column for).
 */
import { sql, type Kysely } from "kysely";

export async function migrate<DB>(db: Kysely<DB>): Promise<void> {
  await sql`create table if not exists users (
    id integer primary key autoincrement,
    org_id text not null,
    email text not null,
    first_name text,
    last_name text,
    is_active integer not null default 1,
    department text,
    created_at text not null default current_timestamp,
    scim_external_id text,
    scim_attributes text
  )`.execute(db);
  // Sign-in looks a user up by e-mail; the identity provider looks one up by its own id.
  await sql`create unique index if not exists users_org_email on users (org_id, email)`.execute(db);
  await sql`create index if not exists users_org_external_id on users (org_id, scim_external_id)`.execute(db);
  await sql`create table if not exists teams (
    id integer primary key autoincrement,
    org_id text not null,
    name text not null,
    scim_external_id text,
    scim_attributes text
  )`.execute(db);
  await sql`create unique index if not exists teams_org_name on teams (org_id, name)`.execute(db);
  await sql`create table if not exists team_members (
    team_id integer not null references teams (id) on delete cascade,
    user_id integer not null references users (id) on delete cascade,
    primary key (team_id, user_id)
  )`.execute(db);
  await sql`create index if not exists team_members_user on team_members (user_id)`.execute(db);
}
