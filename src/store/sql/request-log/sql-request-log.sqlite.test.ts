import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlStore, type SqlStore } from "../sql-store.js";
import { sqlRequestLogBehaviour } from "./sql-request-log-behaviour.fixture.js";

let directory = "";
let store: SqlStore | undefined;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "scimkit-request-log-"));
  store = await sqlStore({ sqlite: join(directory, "scim.db") });
});

afterAll(async () => {
  await store?.close();
  rmSync(directory, { recursive: true, force: true });
});

function opened(): SqlStore {
  if (!store) throw new Error("the SQLite store did not open (see beforeAll)");
  return store;
}

describe("sqlRequestLog on a SQLite file", () => {
  sqlRequestLogBehaviour(opened);

  it("reads an organization's range of an index for every list and retention statement, never the whole table", async () => {
    const db = opened().db;
    const plan = async (statement: ReturnType<typeof sql>): Promise<string> => {
      const rows = await sql<{ detail: string }>`explain query plan ${statement}`.execute(db);
      return rows.rows.map((row) => row.detail).join("\n");
    };
    const newestFirst = await plan(sql`select * from scimkit_request_log where org_id = 'a' and seq < 'x' order by seq desc limit 101`);
    expect(newestFirst).toMatch(/SEARCH scimkit_request_log USING INDEX sqlite_autoindex_scimkit_request_log_1 \(org_id=\? AND seq<\?\)/);
    expect(newestFirst).not.toMatch(/TEMP B-TREE/);
    expect(await plan(sql`select * from scimkit_request_log where org_id = 'a' and request_id = 'r' order by seq desc`)).toMatch(
      /USING INDEX scimkit_request_log_request_id \(org_id=\? AND request_id=\?\)/,
    );
    const byResource = await plan(
      sql`select * from scimkit_request_log where org_id = 'a' and resource_id = 'u' order by seq desc limit 101`,
    );
    expect(byResource).toMatch(/USING INDEX scimkit_request_log_resource_id \(org_id=\? AND resource_id=\?\)/);
    expect(byResource).not.toMatch(/TEMP B-TREE/);
    expect(await plan(sql`select org_id, seq from scimkit_request_log where at_ms < 5 order by at_ms limit 1000`)).toMatch(
      /USING INDEX scimkit_request_log_at_ms \(at_ms<\?\)/,
    );
  });
});
