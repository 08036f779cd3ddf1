/**
 * The existing application with SCIM mounted over its own tables: the Entra and Okta replays of
 * `test/fixtures/idp/` run against it, each under its provider's compatibility profile, and the
 * application's own route sees what they provisioned.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createTokenStore, specProfile } from "scimkit";
import { registerSqliteFunctions } from "scimkit/sql";
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
