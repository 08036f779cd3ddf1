/**
 * NEEDS THE STOCK `sqlite3` COMMAND-LINE TOOL (Debian package `sqlite3`; `.ci/run` installs it;
 * `SCIMKIT_SQLITE3=/path/to/sqlite3` picks another). Without it this file fails, saying to install
 * it — never skips: the point is what that tool can do.
 *
 * A database the store wrote opens in any SQLite tool (issue 14, item 6): on a file with users
 * (mixed-case and non-ASCII e-mails), groups with members and audit entries, written by the store
 * in its worker threads, Debian stable's `sqlite3` (3.40, older than the SQLite better-sqlite3
 * bundles and without our `scimkit_lower`) passes `integrity_check` and FTS5's own check, runs the
 * retention DELETE of docs/security.md (read from the page, so page and test cannot drift), and
 * inserts and updates a user row; `.backup` and `.dump` → restore give files that the store
 * serves: a user by id, `emails co "…"` through the e-mail search, a group's members.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFilter } from "../../scim/filter/resolve-filter.js";
import { createSchemaRegistry } from "../../scim/schema/schema-registry.js";
import { sqlAuditTrail } from "./sql-audit-trail.js";
import { sqlStore, type SqlStore } from "./sql-store.js";

const users = createSchemaRegistry().resourceType("User")!;
const NOW = "2025-06-01T00:00:00.000Z";
const ORG = "acme";

/** `SCIMKIT_SQLITE3` when set (a path), else the `sqlite3` on PATH or `/usr/bin/sqlite3`, if it exists. */
function findCli(): string | undefined {
  const chosen = process.env["SCIMKIT_SQLITE3"];
  if (chosen) return existsSync(chosen) ? chosen : undefined;
  const candidates = [
    ...(process.env["PATH"] ?? "")
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, "sqlite3")),
    "/usr/bin/sqlite3",
  ];
  return candidates.find((path) => existsSync(path));
}

const cliPath = findCli();
const MISSING =
  "the sqlite3 command-line tool is not installed, and these tests are about what it can do: install it (Debian/Ubuntu: apt-get install -y sqlite3; .ci/run does) and run them again";

/** Runs the CLI on `file` with `args` (and `input` on stdin), failing on any error it reports. */
function cli(file: string, args: readonly string[], input?: string): string {
  if (cliPath === undefined) throw new Error(MISSING);
  // -bail: the first error stops it with a non-zero status instead of going on with the next line.
  const result = spawnSync(cliPath, ["-bail", file, ...args], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    ...(input === undefined ? {} : { input }),
  });
  if (result.error) throw result.error;
  if (result.status !== 0 || result.stderr.trim() !== "")
    throw new Error(`sqlite3 ${args.join(" ")} → status ${result.status}: ${result.stderr}`);
  return result.stdout;
}

/** The retention statement docs/security.md gives operators, as written there. */
function documentedRetentionDelete(): string {
  const page = readFileSync(new URL("../../../docs/security.md", import.meta.url), "utf8");
  const statement = /`(delete from scimkit_audit [^`]*)`/.exec(page)?.[1];
  if (statement === undefined) throw new Error("docs/security.md no longer shows a `delete from scimkit_audit …` statement");
  return statement;
}

type Email = { readonly value: string; readonly type: string };
const PEOPLE: readonly (readonly [id: string, emails: readonly Email[]])[] = [
  [
    "ann",
    [
      { value: "Ann.Lee@Dept7.Example.com", type: "work" },
      { value: "ann@home.io", type: "home" },
    ],
  ],
  ["bob", [{ value: "ΣΟΦΊΑ@Dept7.example.gr", type: "work" }]],
  ["cyd", [{ value: "İstanbul@X.tr", type: "work" }]],
  ["dee", [{ value: "JOSÉ@Example.COM", type: "work" }]],
  ["eve", []],
];

async function writeFixture(file: string): Promise<void> {
  // Worker threads, as a host runs it.
  const store = await sqlStore({ sqlite: file });
  try {
    for (const [id, emails] of PEOPLE) {
      await store.create({
        orgId: ORG,
        resourceType: "User",
        id,
        now: NOW,
        attributes: { userName: id, ...(emails.length > 0 ? { emails: [...emails] } : {}) },
        uniqueKeys: [{ attribute: "userName", value: id }],
        unknownMembers: "ignore",
      });
    }
    // One user more, deleted: the resources' rowids have a gap, which a `.dump` closes.
    await store.create({
      orgId: ORG,
      resourceType: "User",
      id: "gone",
      now: NOW,
      attributes: { userName: "gone", emails: [{ value: "gone@dept7.example.com" }] },
      uniqueKeys: [{ attribute: "userName", value: "gone" }],
      unknownMembers: "ignore",
    });
    await store.delete({ orgId: ORG, resourceType: "User", id: "gone", now: NOW });
    await store.update({
      orgId: ORG,
      resourceType: "User",
      id: "ann",
      now: NOW,
      attributes: {
        userName: "ann",
        emails: [
          { value: "Ann.Lee@Dept7.Example.com", type: "work" },
          { value: "Ann@Élan.io", type: "home" },
        ],
      },
      uniqueKeys: [{ attribute: "userName", value: "ann" }],
      unknownMembers: "ignore",
      members: false,
    });
    await store.create({
      orgId: ORG,
      resourceType: "Group",
      id: "g1",
      now: NOW,
      attributes: { displayName: "Dept 7" },
      uniqueKeys: [{ attribute: "displayName", value: "dept 7" }],
      members: ["ann", "bob"],
      unknownMembers: "ignore",
    });
    await store.update({
      orgId: ORG,
      resourceType: "Group",
      id: "g1",
      now: NOW,
      membership: { kind: "delta", add: ["dee"], remove: ["bob"] },
      unknownMembers: "ignore",
      members: false,
    });
    const trail = sqlAuditTrail(store.db);
    for (const at of ["2025-03-01T10:00:00.000Z", "2025-12-31T23:59:59.999Z", "2026-02-01T08:00:00.000Z"]) {
      await trail.record({
        orgId: ORG,
        operation: "create",
        resourceType: "User",
        resourceId: "ann",
        at,
        outcome: "success",
        status: 201,
        via: "request",
      });
    }
  } finally {
    await store.close();
  }
}

async function ids(store: SqlStore, text: string): Promise<string[]> {
  const filter = compileFilter(users, text);
  if (!filter.ok) throw new Error(filter.error.detail);
  const page = await store.list({
    orgId: ORG,
    resourceType: "User",
    filter: filter.value,
    page: { kind: "index", startIndex: 1, count: 100 },
    members: false,
  });
  return page.resources.map((resource) => resource.id);
}

/**
 * What the store serves from `file`: a user, e-mail searches (through the index), a group's
 * members; with `write`, also that a write there is searched at once.
 */
async function expectServed(file: string, step: string, write: boolean): Promise<void> {
  const store = await sqlStore({ sqlite: file });
  try {
    expect(store.dialect.searchContains, `${step}: the e-mail search is there`).toBeDefined();
    const ann = await store.get({ orgId: ORG, resourceType: "User", id: "ann", members: false });
    expect(ann?.attributes["emails"], step).toEqual([
      { value: "Ann.Lee@Dept7.Example.com", type: "work" },
      { value: "Ann@Élan.io", type: "home" },
    ]);
    expect(await ids(store, 'emails co "@DEPT7."'), step).toEqual(["ann", "bob"]);
    expect(await ids(store, 'emails.value sw "σοφία@"'), step).toEqual(["bob"]);
    expect(await ids(store, 'emails[type eq "home" and value ew "@élan.IO"]'), step).toEqual(["ann"]);
    expect(await ids(store, 'emails.value co "i̇stanbul"'), step).toEqual(["cyd"]);
    expect(await ids(store, 'emails.value eq "josé@example.com"'), step).toEqual(["dee"]);
    expect(await ids(store, 'emails co "gone@"'), step).toEqual([]);
    // The row the tool inserted, and the one it updated.
    expect((await store.get({ orgId: ORG, resourceType: "User", id: "fay", members: false }))?.attributes, step).toEqual({
      userName: "fay",
    });
    expect((await store.get({ orgId: ORG, resourceType: "User", id: "eve", members: false }))?.attributes, step).toEqual({
      userName: "eve",
      displayName: "Eve",
    });
    const group = await store.get({ orgId: ORG, resourceType: "Group", id: "g1", members: true });
    expect(group?.members, step).toEqual([
      { value: "ann", type: "User" },
      { value: "dee", type: "User" },
    ]);
    if (!write) return;
    await store.update({
      orgId: ORG,
      resourceType: "User",
      id: "eve",
      now: NOW,
      attributes: { userName: "eve", emails: [{ value: "Eve@Dept7.example.com" }] },
      uniqueKeys: [{ attribute: "userName", value: "eve" }],
      unknownMembers: "ignore",
      members: false,
    });
    expect(await ids(store, 'emails co "@DEPT7."'), step).toEqual(["ann", "bob", "eve"]);
  } finally {
    await store.close();
  }
}

describe(`the stock sqlite3 CLI (${cliPath ?? "missing"}) on a file the store wrote`, () => {
  let directory: string;
  let file: string;
  beforeAll(async () => {
    if (cliPath === undefined) throw new Error(MISSING);
    directory = mkdtempSync(join(tmpdir(), "scimkit-sqlite3-cli-"));
    file = join(directory, "scim.db");
    await writeFixture(file);
  }, 60_000);
  afterAll(() => {
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it("is a SQLite older than the one better-sqlite3 bundles (Debian 12: 3.40)", () => {
    const version = cli(":memory:", ["select sqlite_version()"]).trim();
    console.log(`sqlite3 CLI: SQLite ${version}`);
    expect(version).toMatch(/^3\.\d+\.\d+$/);
  });

  it("opens the file and passes integrity_check, foreign_key_check and FTS5's integrity-check", () => {
    expect(cli(file, ["pragma integrity_check"]).trim()).toBe("ok");
    expect(cli(file, ["pragma foreign_key_check"]).trim()).toBe("");
    cli(file, ["insert into scimkit_emails_search(scimkit_emails_search) values('integrity-check')"]);
    expect(cli(file, ["select count(*) from scimkit_resources"]).trim()).toBe("6");
  });

  it("runs the retention DELETE docs/security.md gives", () => {
    const statement = documentedRetentionDelete();
    expect(cli(file, ["select count(*) from scimkit_audit"]).trim()).toBe("3");
    cli(file, [statement]);
    expect(cli(file, ["select at from scimkit_audit"]).trim()).toBe("2026-02-01T08:00:00.000Z");
  });

  it("inserts and updates a user row (no function of ours is needed)", () => {
    cli(file, [
      `insert into scimkit_resources (org_id, id, resource_type, version, created, last_modified, external_id, attributes, member_seq)
       values ('${ORG}', 'fay', 'User', 1, '${NOW}', '${NOW}', null, '{"userName":"fay"}', null)`,
    ]);
    cli(file, [
      `update scimkit_resources set attributes = json_set(attributes, '$.displayName', 'Eve'), version = version + 1 where org_id = '${ORG}' and id = 'eve'`,
    ]);
    expect(cli(file, ["select json_extract(attributes, '$.displayName') from scimkit_resources where id = 'eve'"]).trim()).toBe("Eve");
  });

  it("serves the file itself afterwards", async () => {
    await expectServed(file, "the file", false);
  }, 60_000);

  it(".backup makes a copy the store serves", async () => {
    const backup = join(directory, "backup.db");
    cli(file, [`.backup '${backup}'`]);
    expect(cli(backup, ["pragma integrity_check"]).trim()).toBe("ok");
    await expectServed(backup, ".backup", true);
  }, 60_000);

  it(".dump restored into a new file (resource rowids renumbered) is a copy the store serves", async () => {
    const restored = join(directory, "restored.db");
    const dump = cli(file, [".dump"]);
    cli(restored, [], dump);
    expect(cli(restored, ["pragma integrity_check"]).trim()).toBe("ok");
    cli(restored, ["insert into scimkit_emails_search(scimkit_emails_search) values('integrity-check')"]);
    await expectServed(restored, ".dump", true);
  }, 60_000);
});
