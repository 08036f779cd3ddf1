/**
 * The host's files on disk are its user's alone (issue 27): the SQLite database, its `-wal` and
 * `-shm` files and `scimkit backup` copies are created 0600, and the data directory the host
 * makes is 0700 — with the usual umask 022, under which they used to be 0644 and 0755.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openHostStore } from "./open-host-store.js";
import { scimkit } from "./scimkit-cli.fixture.js";

const NOW = "2025-06-15T12:00:00.000Z";

/** The permission bits of `path`, as `ls -l` reads them in octal. */
function modeOf(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

let scratch: string;
let umask: number;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "scimkit-modes-"));
  // The common default, under which Node and SQLite create files readable by everyone.
  umask = process.umask(0o022);
});
afterAll(() => {
  process.umask(umask);
  rmSync(scratch, { recursive: true, force: true });
});

/** Opens a SQLite host store at `path` and writes an organization and a token, so SQLite has its WAL. */
async function writeThrough(path: string, check: () => void): Promise<void> {
  const database = await openHostStore(`sqlite:${path}`);
  try {
    await database.analytics.createOrganization({ id: "acme", name: "Acme", status: "active", createdAt: NOW, updatedAt: NOW });
    await database.tokens.issue("acme", { label: "file modes" });
    check();
  } finally {
    await database.close();
  }
}

describe("the host's SQLite files", () => {
  it("a new database in a new directory: the directory 0700, the database, -wal and -shm 0600", async () => {
    const directory = join(scratch, "data");
    const path = join(directory, "scimkit.db");
    await writeThrough(path, () => {
      expect(existsSync(`${path}-wal`)).toBe(true);
      expect(existsSync(`${path}-shm`)).toBe(true);
      expect([modeOf(directory), modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)]).toEqual(["700", "600", "600", "600"]);
    });
    // Opened again, and written to: still its user's alone.
    const again = await openHostStore(`sqlite:${path}`);
    try {
      await again.tokens.issue("acme");
      expect([modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)]).toEqual(["600", "600", "600"]);
    } finally {
      await again.close();
    }
  });

  it("scimkit backup writes its copy 0600, with --force too", { timeout: 120_000 }, async () => {
    const source = join(scratch, "served.db");
    await writeThrough(source, () => undefined);
    const backup = join(scratch, "backup.db");
    const env = { DATABASE_URL: `sqlite:${source}` };
    const first = await scimkit(["backup", backup], env);
    expect(first.status, first.stderr).toBe(0);
    expect(modeOf(backup)).toBe("600");
    const forced = await scimkit(["backup", backup, "--force"], env);
    expect(forced.status, forced.stderr).toBe(0);
    expect(modeOf(backup)).toBe("600");
    // And it is a whole copy: it opens as a store holding the organization.
    const copy = await openHostStore(`sqlite:${backup}`, { migrate: false });
    try {
      expect((await copy.analytics.getOrganization({ all: true }, "acme"))?.name).toBe("Acme");
    } finally {
      await copy.close();
    }
  });
});
