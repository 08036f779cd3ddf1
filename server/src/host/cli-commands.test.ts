/**
 * The operator's commands as processes (issue 14, item 3): `orgs`, `tokens`, `operator-key` and
 * `backup` on the database a real host serves, each change holding from the host's next request
 * on — on SQLite, and the token lifecycle again on PostgreSQL when one is configured.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqlAuditTrail, sqlStore } from "scimkit/sql";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { killHosts, startHost } from "./host-process.fixture.js";
import { scimkit, scimkitJson as json } from "./scimkit-cli.fixture.js";

interface Issued {
  readonly token: { readonly id: string; readonly prefix: string };
  readonly secret: string;
}

const SCIM = { "Content-Type": "application/scim+json" };

/** The status of a SCIM request with `secret`: 200 while it works, 401 once it does not. */
async function scimStatus(base: string, secret: string): Promise<number> {
  const response = await fetch(`${base}/Users`, { headers: { ...SCIM, Authorization: `Bearer ${secret}` } });
  await response.body?.cancel();
  return response.status;
}

/**
 * Creates organization `acme` with the CLI, starts a host on the same database, and walks a token
 * through issue, rotate and revoke: every change holds on the host's next request.
 */
async function tokenLifecycle(env: Record<string, string>): Promise<{ readonly base: string; readonly secret: string }> {
  const created = await json<{ organization: { id: string }; scim: { baseUrl: string; token: string } }>(
    ["orgs", "create", "Acme Inc", "--id", "acme"],
    env,
  );
  expect(created.organization.id).toBe("acme");
  expect(created.scim.baseUrl).toBe("/scim/Organizations/acme/v2");
  const host = startHost({ ...env, SCIMKIT_ORGS: "" });
  const [, port] = await host.waitFor(/listening on port (\d+)/);
  const base = `http://localhost:${port}${created.scim.baseUrl}`;
  expect(await scimStatus(base, created.scim.token)).toBe(200);

  const issued = await json<Issued>(["tokens", "issue", "acme", "--label", "okta"], env);
  expect(await scimStatus(base, issued.secret)).toBe(200);

  const rotated = await json<Issued>(["tokens", "rotate", "acme", issued.token.id], env);
  expect(rotated.token.id).toBe(issued.token.id);
  expect(await scimStatus(base, issued.secret)).toBe(401);
  expect(await scimStatus(base, rotated.secret)).toBe(200);

  const listed = await scimkit(["tokens", "list", "acme", "--json"], env);
  expect(listed.status).toBe(0);
  const ids = (JSON.parse(listed.stdout) as { data: { id: string }[] }).data.map((token) => token.id);
  expect(ids).toContain(issued.token.id);
  for (const secret of [created.scim.token, issued.secret, rotated.secret]) expect(listed.stdout).not.toContain(secret);
  expect(listed.stdout).not.toMatch(/hash|digest/i);

  const revoked = await scimkit(["tokens", "revoke", "acme", issued.token.id], env);
  expect(revoked.status).toBe(0);
  expect(await scimStatus(base, rotated.secret)).toBe(401);
  expect(await scimStatus(base, created.scim.token)).toBe(200);
  return { base, secret: created.scim.token };
}

describe("the operator's commands on SQLite", () => {
  let directory: string;
  let env: Record<string, string>;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-cli-commands-"));
    env = { DATABASE_URL: `sqlite:${join(directory, "scim.db")}` };
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  afterEach(killHosts);

  it("manage organizations, tokens, the operator key and a backup on the database a running host serves", {
    timeout: 120_000,
  }, async () => {
    const { base, secret } = await tokenLifecycle(env);
    const secrets: string[] = [secret];

    // Suspension and resumption hold from the next request on.
    expect((await scimkit(["orgs", "suspend", "acme"], env)).status).toBe(0);
    expect(await scimStatus(base, secret)).toBe(401);
    expect((await scimkit(["orgs", "resume", "acme"], env)).status).toBe(0);
    expect(await scimStatus(base, secret)).toBe(200);
    const orgs = await json<{ data: { id: string; status: string }[] }>(["orgs", "list"], env);
    expect(orgs.data).toContainEqual(expect.objectContaining({ id: "acme", status: "active" }));

    // The operator key: a rotation stops the old one at once.
    const oldKey = (await json<{ apiKey: string }>(["operator-key", "rotate"], env)).apiKey;
    const organizations = `${base.replace(/\/scim\/.*$/, "")}/analytics/v1/organizations`;
    const withKey = async (key: string): Promise<number> => {
      const response = await fetch(organizations, { headers: { Authorization: `Bearer ${key}` } });
      await response.body?.cancel();
      return response.status;
    };
    expect(await withKey(oldKey)).toBe(200);
    const newKey = (await json<{ apiKey: string }>(["operator-key", "rotate"], env)).apiKey;
    expect(await withKey(oldKey)).toBe(401);
    expect(await withKey(newKey)).toBe(200);
    secrets.push(oldKey, newKey);

    // A user, then a backup taken while the host serves: the copy opens as a store and holds it.
    const created = await fetch(`${base}/Users`, {
      method: "POST",
      headers: { ...SCIM, Authorization: `Bearer ${secret}` },
      body: JSON.stringify({
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
        userName: "alice@example.com",
        name: { givenName: "Alice", familyName: "Liddell" },
        emails: [{ value: "alice@example.com", type: "work" }],
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const backup = join(directory, "backup.db");
    const first = await scimkit(["backup", backup], env);
    expect(first.status, first.stderr).toBe(0);
    const again = await scimkit(["backup", backup], env);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/exists; add --force/);
    expect((await scimkit(["backup", backup, "--force"], env)).status).toBe(0);
    const copy = await sqlStore({ sqlite: backup, migrate: false });
    try {
      expect((await copy.get({ orgId: "acme", resourceType: "User", id, members: false }))?.attributes).toMatchObject({
        userName: "alice@example.com",
      });
    } finally {
      await copy.close();
    }

    // Deleting wants --yes; with it, the organization's tokens are gone.
    const unsure = await scimkit(["orgs", "delete", "acme"], env);
    expect(unsure.status).toBe(2);
    expect(unsure.stderr).toMatch(/add --yes/);
    expect(await scimStatus(base, secret)).toBe(200);
    expect((await scimkit(["orgs", "delete", "acme", "--yes"], env)).status).toBe(0);
    expect(await scimStatus(base, secret)).toBe(401);

    // Nothing secret ever reached stderr: every run above that printed one printed it on stdout.
    const stderrs = await Promise.all([
      scimkit(["tokens", "issue", "demo"], env),
      scimkit(["operator-key", "rotate"], env),
      scimkit(["orgs", "create", "Beta", "--id", "beta"], env),
    ]);
    for (const run of stderrs) {
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/shown once/);
      expect(run.stderr).not.toMatch(/scimkit_[A-Za-z0-9_-]{20,}/);
      for (const known of secrets) expect(run.stderr).not.toContain(known);
    }
  });

  it("exit 1 for what is not there or taken, 2 for a wrong command line, with the command's usage", { timeout: 120_000 }, async () => {
    expect((await scimkit(["orgs", "create", "First", "--id", "first"], env)).status).toBe(0);
    for (const [args, status, message] of [
      [["tokens", "list", "nowhere"], 1, /no organization "nowhere"/],
      [["tokens", "rotate", "first", "no-such-token"], 1, /no issued token "no-such-token"/],
      [["tokens", "revoke", "first", "no-such-token"], 1, /no issued token/],
      [["orgs", "create", "Again", "--id", "first"], 1, /with id "first" exists/],
      [["orgs", "suspend", "nowhere"], 1, /no organization "nowhere"/],
      [["orgs", "create", "Dots", "--id", ".."], 2, /--id/],
      [["orgs", "create", "Slash", "--id", "a/b"], 2, /--id/],
      [["tokens", "issue", "first", "--expires", "2001-01-01T00:00:00Z"], 2, /in the future/],
      [["tokens", "issue", "first", "--expires", "soon"], 2, /ISO 8601/],
      [["tokens", "rotate", "first", "x", "--grace-seconds", "-1"], 2, /.+/],
      [["tokens", "rotate", "first", "x", "--grace-seconds", "604801"], 2, /at most 604800/],
      [["tokens", "issue"], 2, /takes <org>/],
      [["tokens", "frobnicate", "first"], 2, /unknown subcommand "frobnicate"/],
      [["tokens", "list", "first", "--label", "x"], 2, /takes no --label/],
      [["operator-key"], 2, /no subcommand given/],
      [["backup"], 2, /no <file> given/],
    ] as const) {
      const run = await scimkit(args, env);
      expect(run.status, args.join(" ")).toBe(status);
      expect(run.stdout, args.join(" ")).toBe("");
      expect(run.stderr, args.join(" ")).toMatch(message);
      if (status === 2) expect(run.stderr, args.join(" ")).toMatch(/Usage: scimkit /);
    }
  });

  it("lists the static tokens of SCIMKIT_ORGS, refuses to change them, and audits every write it makes, refused ones too", {
    timeout: 120_000,
  }, async () => {
    const withStatic = { ...env, SCIMKIT_ORGS: `stat:${"s".repeat(40)}` };
    const created = await json<{ scim: { token: string } }>(["orgs", "create", "Static Inc", "--id", "stat"], withStatic);
    const listed = await json<{ data: Record<string, string>[] }>(["tokens", "list", "stat"], withStatic);
    expect(listed.data[0]).toEqual({ id: "static-1", source: "static", label: "SCIMKIT_ORGS" });
    expect(listed.data.slice(1).map((token) => token["source"])).toEqual(["issued"]);
    expect(JSON.stringify(listed)).not.toContain("s".repeat(40));
    for (const verb of ["rotate", "revoke"]) {
      const refused = await scimkit(["tokens", verb, "stat", "static-1"], withStatic);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/static: it comes from SCIMKIT_ORGS/);
    }
    expect((await scimkit(["tokens", "revoke", "stat", "no-such-token"], withStatic)).status).toBe(1);
    expect((await scimkit(["orgs", "suspend", "stat"], withStatic)).status).toBe(0);
    expect((await scimkit(["operator-key", "rotate"], withStatic)).status).toBe(0);

    const store = await sqlStore({ sqlite: env["DATABASE_URL"]?.slice("sqlite:".length) ?? "", migrate: false });
    try {
      const trail = sqlAuditTrail(store.db);
      const summary = (entries: readonly { operation: string; outcome: string; status: number; resourceId?: string; via: string }[]) =>
        entries.map(({ operation, outcome, status, resourceId, via }) => ({ operation, outcome, status, resourceId, via })).reverse();
      expect(summary(await trail.list("stat"))).toEqual([
        { operation: "cli.createOrganization", outcome: "success", status: 201, resourceId: "stat", via: "cli" },
        { operation: "cli.rotateOrganizationToken", outcome: "failure", status: 409, resourceId: "static-1", via: "cli" },
        { operation: "cli.revokeOrganizationToken", outcome: "failure", status: 409, resourceId: "static-1", via: "cli" },
        { operation: "cli.revokeOrganizationToken", outcome: "failure", status: 404, resourceId: "no-such-token", via: "cli" },
        { operation: "cli.suspendOrganization", outcome: "success", status: 200, resourceId: "stat", via: "cli" },
      ]);
      const operatorKeyEntries = (await trail.list("")).filter((entry) => entry.operation === "cli.rotateOperatorKey");
      expect(operatorKeyEntries.map(({ outcome, resourceType }) => ({ outcome, resourceType }))).toContainEqual({
        outcome: "success",
        resourceType: "ApiKey",
      });
      // Ids only: no secret reaches the trail.
      expect(JSON.stringify(await trail.list("stat"))).not.toContain(created.scim.token);
    } finally {
      await store.close();
    }
  });

  it("orgs create and orgs set keep an organization's compatibility profile and existing-user choice", { timeout: 60_000 }, async () => {
    const created = await json<{ organization: Record<string, string> }>(
      ["orgs", "create", "Entra shop", "--id", "entra-shop", "--compatibility", "entra"],
      env,
    );
    expect(created.organization).toMatchObject({ id: "entra-shop", compatibility: "entra" });
    expect(created.organization).not.toHaveProperty("existingUsers");
    const set = await json<Record<string, string>>(
      ["orgs", "set", "entra-shop", "--compatibility", "default", "--existing-users", "link", "--name", "Shop"],
      env,
    );
    expect(set).toMatchObject({ id: "entra-shop", name: "Shop", existingUsers: "link" });
    expect(set).not.toHaveProperty("compatibility");
    const listed = await json<{ data: Record<string, string>[] }>(["orgs", "list"], env);
    expect(listed.data.find((organization) => organization["id"] === "entra-shop")).toEqual(set);
    for (const [args, message] of [
      [["orgs", "set", "entra-shop", "--compatibility", "azure"], /expected one of generic, strict, entra/],
      [["orgs", "create", "X", "--compatibility", "default"], /expected one of .*ping$/m],
      [["orgs", "set", "entra-shop"], /needs --name, --compatibility, --existing-users or --parent/],
      [["orgs", "suspend", "entra-shop", "--existing-users", "link"], /takes no --existing-users/],
    ] as const) {
      const run = await scimkit(args, env);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toMatch(message);
    }
    const missing = await scimkit(["orgs", "set", "nowhere", "--name", "X"], env);
    expect(missing.status).toBe(1);

    // A running host serves the organization under its settings from the next request on.
    const created2 = await json<{ scim: { baseUrl: string; token: string } }>(["orgs", "create", "Served", "--id", "served"], env);
    const host = startHost({ ...env, SCIMKIT_ORGS: "" });
    const [, port] = await host.waitFor(/listening on port (\d+)/);
    const base = `http://localhost:${port}${created2.scim.baseUrl}`;
    const send = async (method: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...SCIM, Authorization: `Bearer ${created2.scim.token}` },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    // The host serves the product's profile (spec §2.3): both names and a work e-mail are required.
    const user = {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: "ada@example.com",
      name: { givenName: "Ada", familyName: "Lovelace" },
      emails: [{ value: "ada@example.com", type: "work" }],
    };
    const { status: createdStatus, body: ada } = await send("POST", "/Users", user);
    expect(createdStatus).toBe(201);
    const replace = {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "Replace", path: "displayName", value: "Ada" }],
    };
    expect((await send("PATCH", `/Users/${String(ada["id"])}`, replace)).status).toBe(200);
    expect((await send("POST", "/Users", user)).status).toBe(409);
    expect((await scimkit(["orgs", "set", "served", "--compatibility", "strict", "--existing-users", "link"], env)).status).toBe(0);
    expect(await send("PATCH", `/Users/${String(ada["id"])}`, replace)).toMatchObject({ status: 400, body: { scimType: "invalidSyntax" } });
    expect(await send("POST", "/Users", user)).toMatchObject({ status: 200, body: { id: ada["id"] } });
  });

  it("orgs create --parent and orgs set --parent build a tree; delete needs --subtree for a parent", { timeout: 60_000 }, async () => {
    const acme = await json<{ organization: Record<string, string>; scim: { token: string } }>(
      ["orgs", "create", "Acme", "--id", "tree-acme"],
      env,
    );
    expect(acme.organization).not.toHaveProperty("parentId");
    const emea = await json<{ organization: Record<string, string> }>(
      ["orgs", "create", "Acme EMEA", "--id", "tree-emea", "--parent", "tree-acme"],
      env,
    );
    expect(emea.organization).toMatchObject({ id: "tree-emea", parentId: "tree-acme" });
    expect((await scimkit(["orgs", "create", "Acme Americas", "--id", "tree-amer", "--parent", "tree-acme"], env)).status).toBe(0);
    const listed = await scimkit(["orgs", "list"], env);
    expect(listed.stdout).toMatch(/^tree-emea {2}active {2}Acme EMEA {2}\(under tree-acme\)$/m);

    const moved = await json<Record<string, string>>(["orgs", "set", "tree-amer", "--parent", "tree-emea"], env);
    expect(moved).toMatchObject({ id: "tree-amer", parentId: "tree-emea" });
    const root = await json<Record<string, string>>(["orgs", "set", "tree-amer", "--parent", "none"], env);
    expect(root).not.toHaveProperty("parentId");
    expect((await scimkit(["orgs", "set", "tree-amer", "--parent", "tree-acme"], env)).status).toBe(0);

    for (const [args, status, message] of [
      [["orgs", "set", "tree-acme", "--parent", "tree-emea"], 1, /cycle \(tree-acme → tree-emea → tree-acme\)/],
      [["orgs", "create", "Orphan", "--parent", "nowhere"], 1, /no organization "nowhere" to be the parent/],
      [["orgs", "create", "Bad", "--parent", "a/b"], 2, /--parent "a\/b": an organization id$/m],
      [["orgs", "suspend", "tree-acme", "--parent", "x"], 2, /takes no --parent/],
      [["orgs", "list", "--subtree"], 2, /takes no --subtree/],
      [["orgs", "delete", "tree-acme", "--yes"], 1, /2 child organizations.*--subtree/],
    ] as const) {
      const run = await scimkit(args, env);
      expect(run.status, args.join(" ")).toBe(status);
      expect(run.stderr, args.join(" ")).toMatch(message);
    }
    expect((await json<{ data: { id: string }[] }>(["orgs", "list"], env)).data.map((organization) => organization.id)).toEqual(
      expect.arrayContaining(["tree-acme", "tree-emea", "tree-amer"]),
    );
    // A cascading suspension reaches the divisions; resuming with --cascade brings them back.
    expect((await scimkit(["orgs", "suspend", "tree-acme", "--cascade"], env)).status).toBe(0);
    const suspended = await json<{ data: { id: string; status: string }[] }>(["orgs", "list"], env);
    expect(suspended.data.filter((organization) => organization.id.startsWith("tree-")).map((organization) => organization.status)).toEqual(
      ["suspended", "suspended", "suspended"],
    );
    expect((await scimkit(["orgs", "resume", "tree-acme", "--cascade"], env)).status).toBe(0);
    const resumed = await json<{ data: { id: string; status: string }[] }>(["orgs", "list"], env);
    expect(
      resumed.data.filter((organization) => organization.id.startsWith("tree-")).every((organization) => organization.status === "active"),
    ).toBe(true);
    expect((await scimkit(["orgs", "set", "tree-acme", "--name", "A", "--cascade"], env)).stderr).toMatch(/takes no --cascade/);
    const deleted = await json<{ deleted: { id: string; subtree: string[] } }>(["orgs", "delete", "tree-acme", "--subtree", "--yes"], env);
    expect(deleted.deleted).toEqual({ id: "tree-acme", subtree: ["tree-acme", "tree-amer", "tree-emea"] });
    const left = (await json<{ data: { id: string }[] }>(["orgs", "list"], env)).data.map((organization) => organization.id);
    expect(left.filter((id) => id.startsWith("tree-"))).toEqual([]);
  });

  it("prints each command's usage on --help, and lists them in scimkit --help", { timeout: 60_000 }, async () => {
    const help = await scimkit(["--help"], {});
    for (const name of ["orgs", "tokens", "operator-key", "backup"]) {
      expect(help.stdout).toMatch(new RegExp(`^ {2}${name} `, "m"));
      const own = await scimkit([name, "--help"], {});
      expect(own.status).toBe(0);
      expect(own.stdout).toMatch(new RegExp(`^Usage: scimkit ${name}`));
    }
    expect(help.stdout).toMatch(/list\|issue\|rotate\|revoke <org>/);
  });

  it("refuses memory: (nothing outlives the process) and prints the pg_dump to run for PostgreSQL, never its password", {
    timeout: 60_000,
  }, async () => {
    const memory = await scimkit(["tokens", "list", "demo"], { DATABASE_URL: "memory:" });
    expect(memory.status).toBe(2);
    expect(memory.stderr).toMatch(/keeps nothing between processes/);
    expect((await scimkit(["backup", join(directory, "m.db")], { DATABASE_URL: "memory:" })).status).toBe(2);
    const postgres = await scimkit(["backup", "scim.dump"], { DATABASE_URL: "postgres://bob:hunter2@db.example:5433/scim?schema=prod" });
    expect(postgres.status).toBe(2);
    expect(postgres.stderr).toContain(
      "pg_dump --host=db.example --port=5433 --username=bob --dbname=scim --schema=prod --format=custom --file=scim.dump",
    );
    expect(postgres.stderr + postgres.stdout).not.toContain("hunter2");
    expect(existsSync(join(directory, "m.db"))).toBe(false);
  });
});

describePostgres("the token lifecycle through the CLI on PostgreSQL", (url) => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => schema.drop());
  afterEach(killHosts);

  it("issue, rotate (old secret 401 on the next request) and revoke, on the database a running host serves", {
    timeout: 120_000,
  }, async () => {
    const database = new URL(url);
    database.searchParams.set("schema", schema.name);
    await tokenLifecycle({ DATABASE_URL: database.toString() });
  });
});
