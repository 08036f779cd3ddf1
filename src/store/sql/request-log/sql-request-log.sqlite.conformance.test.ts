import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { describeRequestLogConformance } from "../../../testkit/request-log/describe-request-log-conformance.js";
import { sqlStore, type SqlStore } from "../sql-store.js";
import { sqlRequestLogUnderTest } from "./sql-request-log-under-test.fixture.js";

// A file in worker threads, as a host runs it: the writer takes the inserts and deletes, readers the lists.
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

describeRequestLogConformance("sqlRequestLog (SQLite file)", (settings) => sqlRequestLogUnderTest(store, settings));
