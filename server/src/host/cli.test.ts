/** The `scimkit` command as a process: usage, version, unknown commands and wrong settings (exit code 2). */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyticsMigrations } from "@scimkit/server";
import { sqlMigrations } from "scimkit/sql";
import { describe, expect, it } from "vitest";
import { compiledSource } from "../../../test/compiled-source.fixture.js";

function scimkit(
  args: readonly string[],
  env: Record<string, string> = {},
): { readonly status: number | null; readonly stdout: string; readonly stderr: string } {
  const result = spawnSync(process.execPath, [compiledSource("server/src/host/cli.ts"), ...args], {
    encoding: "utf8",
    // Only what the test sets: no SCIMKIT_* of the shell running the tests.
    env: { PATH: process.env["PATH"] ?? "", ...env },
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("the scimkit command", () => {
  it("prints its usage on --help and -h, its version on --version", { timeout: 60_000 }, () => {
    for (const flag of ["--help", "-h"]) {
      const help = scimkit([flag]);
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/^Usage: scimkit <command> \[options\]/);
      expect(help.stdout).toMatch(/^ {2}serve +Run the host server in this process/m);
      expect(help.stdout).toMatch(/^ {2}migrate +Apply the store's migrations/m);
    }
    const version = scimkit(["--version"]);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version);
  });

  it("answers an unknown command, no command, an unknown option or a stray argument with the usage on stderr and exit code 2", {
    timeout: 60_000,
  }, () => {
    for (const [args, message] of [
      [["frobnicate"], /unknown command "frobnicate"/],
      [[], /no command given/],
      [["serve", "--verbose"], /Unknown option '--verbose'/],
      [["serve", "now"], /scimkit serve: unexpected argument "now"/],
    ] as const) {
      const run = scimkit(args);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/Usage: scimkit <command>/);
    }
  });

  it("refuses to serve with wrong settings: every mistake on stderr, exit code 2, no stack trace, nothing started", {
    timeout: 60_000,
  }, () => {
    const run = scimkit(["serve"], {
      PORT: "0",
      DATABASE_URL: "memory:",
      SCIMKIT_RATE_LIMIT: "abc",
      SCIMKIT_ORGS: "demo:abc",
      SCIMKIT_RATE_LIMT: "5",
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain('SCIMKIT_RATE_LIMIT="abc": expected requests per second (a positive number) or "off"');
    expect(run.stderr).toContain(
      'SCIMKIT_ORGS: the token of organization "demo" has fewer than 32 characters; generate one with `openssl rand -hex 32`',
    );
    expect(run.stderr).toContain("SCIMKIT_RATE_LIMT is not a setting of the host and is ignored; did you mean SCIMKIT_RATE_LIMIT?");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("migrates and exits 0", { timeout: 60_000 }, () => {
    const run = scimkit(["migrate"], { DATABASE_URL: "memory:" });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/up to date/);
  });

  it("migrates a SQLite file in both namespaces, then finds it up to date", { timeout: 60_000 }, () => {
    const directory = mkdtempSync(join(tmpdir(), "scimkit-cli-migrate-"));
    try {
      const database = `sqlite:${join(directory, "scim.db")}`;
      const first = scimkit(["migrate"], { DATABASE_URL: database });
      expect(first.status).toBe(0);
      expect(first.stdout).toContain(
        `applied scim ${sqlMigrations.map((migration) => migration.version).join(", ")}; analytics ${analyticsMigrations.map((migration) => migration.version).join(", ")}`,
      );
      const second = scimkit(["migrate"], { DATABASE_URL: database });
      expect(second.status).toBe(0);
      expect(second.stdout).toMatch(/up to date, no migration applied/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
