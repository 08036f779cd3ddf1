import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { describeStoreConformance } from "../../testkit/index.js";
import { sqlStore, type SqlStore } from "./sql-store.js";

// A private in-memory database per test, in its worker thread: migrating one takes about a millisecond.
describeStoreConformance({ name: "sql (SQLite)", createStore: () => sqlStore({ sqlite: ":memory:" }) });

// A file, as a host runs it: the writer thread and the read-only readers beside it. Tests work in
// organizations of their own, so one store serves them all.
const directory = mkdtempSync(join(tmpdir(), "scimkit-sqlite-conformance-"));
let shared: Promise<SqlStore> | undefined;
describeStoreConformance({
  name: "sql (SQLite file, writer and reader threads)",
  createStore: () => (shared ??= sqlStore({ sqlite: join(directory, "scim.db") })),
  destroyStore: () => {},
});
afterAll(async () => {
  await (await shared)?.close();
  rmSync(directory, { recursive: true, force: true });
});

// The event-loop mode (`threads: false`) stays an option, so it keeps the contract too.
describeStoreConformance({ name: "sql (SQLite on the event loop)", createStore: () => sqlStore({ sqlite: ":memory:", threads: false }) });
