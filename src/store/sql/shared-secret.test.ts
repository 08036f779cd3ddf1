import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "./postgres-test-database.fixture.js";
import { sqlStore, type SqlStore } from "./sql-store.js";

/** What every database must show: one secret per name for every store on it, kept across reopening. */
function sharedSecretChecks(open: () => Promise<SqlStore>): void {
  const opened: SqlStore[] = [];
  const track = async (): Promise<SqlStore> => {
    const store = await open();
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it("gives several stores asking at once for a new name one value, of 256 bits", async () => {
    const stores = await Promise.all([1, 2, 3].map(() => track()));
    const secrets = await Promise.all(stores.map((store) => store.sharedSecret("race")));
    expect(new Set(secrets).size).toBe(1);
    expect(Buffer.from(secrets[0] ?? "", "base64url")).toHaveLength(32);
  });

  it("keeps the value across closing and reopening, and draws another for another name", async () => {
    const first = await (await track()).sharedSecret("cursor");
    await Promise.all(opened.splice(0).map((store) => store.close()));
    const reopened = await track();
    expect(await reopened.sharedSecret("cursor")).toBe(first);
    expect(await reopened.sharedSecret("another")).not.toBe(first);
  });
}

describe("sharedSecret on SQLite", () => {
  let directory = "";
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-secret-"));
  });
  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });
  sharedSecretChecks(() => sqlStore({ sqlite: join(directory, "secret.db"), threads: { readers: 1 } }));
});

describePostgres("sharedSecret on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  sharedSecretChecks(() => {
    if (!schema) throw new Error("the test schema was not created (see beforeAll)");
    return sqlStore({ postgres: schema.pool() });
  });
});
