/**
 * The existing application with SCIM mounted over its own tables: the Entra and Okta replays of
 * `test/fixtures/idp/` run against it, each under its provider's compatibility profile, and the
 * application's own route sees what they provisioned.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createTokenStore } from "scimkit";
import { specProfile } from "scimkit/core";
import { postgresDialect, registerSqliteFunctions, sqliteDialect, type SqlDialect } from "scimkit/sql";
import { createTestSchema, describePostgres } from "../../src/store/sql/postgres-test-database.fixture.js";
import {
  encodeRequestPath,
  findMismatch,
  parseReplayFixture,
  readJsonPath,
  statusMatches,
  substitute,
  type ReplayFixture,
} from "../../test/idp/replay-fixture.js";
import { createApp } from "./app.js";
import { migrate } from "./migrate.js";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/idp/", import.meta.url));

async function openApp() {
  const database = new Database(":memory:");
  registerSqliteFunctions(database);
  const db = new Kysely<object>({ dialect: new SqliteDialect({ database }) });
  await migrate(db);
  const tokens = createTokenStore();
  const { token } = await tokens.issue("acme", { label: "replays" });
  return { db, tokens, token };
}

function fixturesOf(provider: "entra" | "okta"): ReplayFixture[] {
  const directory = `${FIXTURES}${provider}/`;
  return readdirSync(directory)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) =>
      parseReplayFixture(JSON.parse(readFileSync(`${directory}${name}`, "utf8")) as unknown, `test/fixtures/idp/${provider}/${name}`),
    );
}

/** Replays `fixture`; returns every failing step, described. */
async function replay(
  provider: "entra" | "okta",
  fixture: ReplayFixture,
): Promise<{ failures: string[]; app: Awaited<ReturnType<typeof createApp>> }> {
  const { db, tokens, token } = await openApp();
  const errors: unknown[] = [];
  const app = await createApp(db, {
    auth: tokens,
    compatibility: provider,
    onError: (error) => errors.push(error),
    ...(fixture.profile === "spec" ? { profile: specProfile } : {}),
  });
  const captured = new Map<string, string>();
  const failures: string[] = [];
  for (const [index, step] of fixture.steps.entries()) {
    const url = `/scim/Organizations/acme/v2${encodeRequestPath(substitute(step.request.path, captured))}`;
    const method = step.request.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
    let test = request(app)[method](url).set("Authorization", `Bearer ${token}`);
    for (const [name, value] of Object.entries({ ...fixture.headers, ...step.request.headers }))
      test = test.set(name, substitute(value, captured));
    const body = substitute(step.request.body, captured);
    const response = await (body === undefined ? test : test.send(JSON.stringify(body)));
    const label = `${fixture.scenario} — step ${index + 1} "${step.name}" (${step.request.method} ${url})`;
    if (!statusMatches(step.expect.status, response.status))
      failures.push(`${label}: status ${response.status} ${JSON.stringify(response.body)}`);
    if (step.expect.body !== undefined) {
      const mismatch = findMismatch(substitute(step.expect.body, captured), response.body);
      if (mismatch) failures.push(`${label}: body ${mismatch}`);
    }
    for (const [name, path] of Object.entries(step.capture ?? {})) captured.set(name, String(readJsonPath(response.body, path)));
  }
  if (errors.length > 0) failures.push(`server errors: ${errors.map(String).join("; ")}`);
  return { failures, app };
}

describe("the existing application, provisioned by replays", () => {
  for (const provider of ["entra", "okta"] as const) {
    for (const fixture of fixturesOf(provider)) {
      it(`${provider}: ${fixture.scenario}`, async () => {
        const { failures } = await replay(provider, fixture);
        expect(failures).toEqual([]);
      });
    }
  }

  it("shows a provisioned user and its team on the application's own route at once", async () => {
    const { db, tokens, token } = await openApp();
    const app = await createApp(db, { auth: tokens });
    const scim = (path: string) => `/scim/Organizations/acme/v2${path}`;
    const user = await request(app)
      .post(scim("/Users"))
      .set("Authorization", `Bearer ${token}`)
      .send({
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
        userName: "ann@acme.test",
        name: { givenName: "Ann" },
        active: true,
      })
      .expect(201);
    await request(app)
      .post(scim("/Groups"))
      .set("Authorization", `Bearer ${token}`)
      .send({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Support", members: [{ value: user.body.id }] })
      .expect(201);
    // Without `active`, the application's own default (`is_active not null default 1`) applies.
    const bob = await request(app)
      .post(scim("/Users"))
      .set("Authorization", `Bearer ${token}`)
      .send({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "bob@acme.test" })
      .expect(201);
    expect(bob.body.active).toBe(true);
    // Removing it is refused: the column is NOT NULL, and the client hears which attribute.
    const removal = await request(app)
      .patch(scim(`/Users/${bob.body.id}`))
      .set("Authorization", `Bearer ${token}`)
      .send({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "remove", path: "active" }] })
      .expect(400);
    expect(removal.body).toMatchObject({ scimType: "invalidValue", detail: expect.stringContaining("active") });
    const own = await request(app).get("/app/acme/users").expect(200);
    expect(own.body).toEqual([
      { id: Number(user.body.id), email: "ann@acme.test", first_name: "Ann", is_active: 1, teams: ["Support"] },
      { id: Number(bob.body.id), email: "bob@acme.test", first_name: null, is_active: 1, teams: [] },
    ]);
  });
});

/** The step of an Entra fixture called `name`: the requests Entra documents, used as templates. */
function entraStep(fixture: string, name: string) {
  const step = fixturesOf("entra")
    .find((candidate) => candidate.scenario === fixture)
    ?.steps.find((candidate) => candidate.name === name);
  if (!step) throw new Error(`no step "${name}" in the Entra fixture "${fixture}"`);
  return step;
}

/**
 * Issue 27, point 15: Entra's first sync against an application that had its users before SCIM.
 * The application wrote them itself, with its own capitals; Entra sends the same e-mails in lower
 * case (RFC 7643 §4.1.1: userName is caseExact false). Its lookup must find each one, and its POST
 * (with `existingUsers: "link"`) must take each over: no second account for anyone.
 */
function describeFirstSync(dialect: SqlDialect, open: () => Promise<{ readonly db: Kysely<object>; close(): Promise<void> }>) {
  // The application's own users: ASCII capitals, and one name beyond ASCII.
  const people = [
    { email: "Ada.Lovelace@Example.com", given: "Ada", family: "Lovelace" },
    { email: "GRACE.HOPPER@EXAMPLE.COM", given: "Grace", family: "Hopper" },
    { email: "Alan.Turing@example.com", given: "Alan", family: "Turing" },
    { email: "Émile.Zola@Exemple.fr", given: "Émile", family: "Zola" },
  ];
  const lookup = entraStep("user lifecycle", "Get User by query - Zero results");
  const create = entraStep("user lifecycle", "Create User");

  it("links every user the application created first, and creates none", async () => {
    const { db, close } = await open();
    try {
      await migrate(db, dialect);
      for (const person of people) {
        await sql`insert into users (org_id, email, first_name, last_name) values ('acme', ${person.email}, ${person.given}, ${person.family})`.execute(
          db,
        );
      }
      // The same e-mail in another organization is another person, and stays untouched.
      await sql`insert into users (org_id, email) values ('globex', ${people[0]!.email})`.execute(db);
      const own = await sql<{
        readonly id: number;
        readonly email: string;
      }>`select id, email from users where org_id = 'acme' order by id`.execute(db);
      const tokens = createTokenStore();
      const { token } = await tokens.issue("acme", { label: "entra" });
      const errors: unknown[] = [];
      const app = await createApp(
        db,
        { auth: tokens, compatibility: "entra", existingUsers: "link", onError: (error) => errors.push(error) },
        dialect,
      );
      const scim = (path: string) => `/scim/Organizations/acme/v2${path}`;

      for (const [index, person] of people.entries()) {
        const userName = person.email.toLowerCase();
        const appId = String(own.rows[index]!.id);
        // Entra's lookup, as its fixture sends it, for the lower-case name.
        const path = lookup.request.path.replace("Test_User_00aa00aa-bb11-cc22-dd33-44ee44ee44ee", userName);
        const found = await request(app)
          .get(scim(encodeRequestPath(path)))
          .set("Authorization", `Bearer ${token}`)
          .expect(200);
        expect(found.body, userName).toMatchObject({ totalResults: 1, Resources: [{ id: appId, userName: person.email }] });
        // Entra's create, as its fixture sends it: linked to the application's row (200, its id).
        const body = {
          ...(create.request.body as Record<string, unknown>),
          userName,
          externalId: `entra-${index}`,
          emails: [{ primary: true, type: "work", value: userName }],
          name: { formatted: `${person.given} ${person.family}`, givenName: person.given, familyName: person.family },
        };
        const linked = await request(app)
          .post(scim("/Users"))
          .set("Authorization", `Bearer ${token}`)
          .set("Content-Type", "application/scim+json")
          .send(JSON.stringify(body));
        expect(linked.status, JSON.stringify(linked.body)).toBe(200);
        expect(linked.body).toMatchObject({ id: appId, userName, externalId: `entra-${index}` });
      }

      const counts = await sql<{
        readonly org_id: string;
        readonly n: number | string;
      }>`select org_id, count(*) as n from users group by org_id order by org_id`.execute(db);
      expect(counts.rows.map((row) => [row.org_id, Number(row.n)])).toEqual([
        ["acme", people.length],
        ["globex", 1],
      ]);
      const after = await sql<{
        readonly id: number;
        readonly email: string;
        readonly scim_external_id: string | null;
      }>`select id, email, scim_external_id from users order by id`.execute(db);
      expect(after.rows.map((row) => [row.id, row.email, row.scim_external_id])).toEqual([
        ...own.rows.map((row, index) => [row.id, people[index]!.email.toLowerCase(), `entra-${index}`]),
        [expect.any(Number), people[0]!.email, null],
      ]);
      // A name that differs only in case from a user of the organization is that user: a create
      // under it is 409 uniqueness with "conflict", and it is found in any case.
      const again = await request(app)
        .get(scim(encodeRequestPath('/Users?filter=userName eq "ADA.LOVELACE@EXAMPLE.COM"')))
        .set("Authorization", `Bearer ${token}`)
        .expect(200);
      expect(again.body).toMatchObject({ totalResults: 1, Resources: [{ id: String(own.rows[0]!.id) }] });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("refuses, with 409 uniqueness, to create a second account under another case without link", async () => {
    const { db, close } = await open();
    try {
      await migrate(db, dialect);
      await sql`insert into users (org_id, email) values ('acme', 'Ada.Lovelace@Example.com')`.execute(db);
      await sql`insert into teams (org_id, name) values ('acme', 'Support')`.execute(db);
      const tokens = createTokenStore();
      const { token } = await tokens.issue("acme", { label: "entra" });
      const app = await createApp(db, { auth: tokens, compatibility: "entra" }, dialect);
      const scim = (path: string) => `/scim/Organizations/acme/v2${path}`;
      for (const [endpoint, body, attribute] of [
        ["/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "ada.lovelace@example.com" }, "userName"],
        ["/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "SUPPORT" }, "displayName"],
      ] as const) {
        const refused = await request(app).post(scim(endpoint)).set("Authorization", `Bearer ${token}`).send(body);
        expect(refused.status, JSON.stringify(refused.body)).toBe(409);
        expect(refused.body).toMatchObject({ scimType: "uniqueness", detail: expect.stringContaining(attribute) });
      }
      const counts = await sql<{
        readonly users: number | string;
        readonly teams: number | string;
      }>`select (select count(*) from users) as users, (select count(*) from teams) as teams`.execute(db);
      expect(counts.rows.map((row) => [Number(row.users), Number(row.teams)])).toEqual([[1, 1]]);
    } finally {
      await close();
    }
  });
}

describe("Entra's first sync against the application's own users, on SQLite", () => {
  describeFirstSync(sqliteDialect, async () => {
    const database = new Database(":memory:");
    registerSqliteFunctions(database);
    const db = new Kysely<object>({ dialect: new SqliteDialect({ database }) });
    return { db, close: () => db.destroy() };
  });
});

describePostgres("Entra's first sync against the application's own users, on PostgreSQL", (url) => {
  describeFirstSync(postgresDialect, async () => {
    // A schema per test, dropped (with the pool ended) by its close.
    const schema = await createTestSchema(url);
    const db = new Kysely<object>({ dialect: new PostgresDialect({ pool: schema.pool() }) });
    return { db, close: () => schema.drop() };
  });
});
