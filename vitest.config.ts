import { fileURLToPath } from "node:url";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";
import { ProcessTestsFirstSequencer } from "./test/process-tests-first-sequencer.js";
import { testWorkers } from "./test/test-workers.js";

// Every HTTP test runs on Express 5 with the memory store (`express5`). Two projects run some of
// them again, each for what it changes; a file in neither changes with neither.
const httpTests = ["test/http/**/*.test.ts", "test/idp/**/*.test.ts"];

// `express5-sqlite`: the files where the store behind the router answers what the test asserts —
// uniqueness, concurrency, members, filters and paging pushed down to SQL, versions and
// preconditions, transactions — now on an in-memory SQLite `sqlStore` (test/http/harness.ts).
// Left out: files that never use the project's store (they open their own, or none), and files
// whose subject is decided before any store is asked (the wire, authentication, limits, profiles,
// the request log). The stores' own semantics are the conformance kits' (memory, SQLite,
// PostgreSQL: `src/store/**/*.conformance.test.ts`), in the `unit` project.
const sqliteHttpTests = [
  "test/http/audit.test.ts", // the audit sink is sqlAuditTrail on the store's own database
  "test/http/auth-and-tenancy.test.ts", // every read and write scoped to the path's organization
  "test/http/big-groups.test.ts", // 100,000 members written and read in slices
  "test/http/bulk.test.ts", // bulkId references and per-operation preconditions on stored resources
  "test/http/concurrency.test.ts", // concurrent writes: serialized, re-read and re-applied, 412 vs 409
  "test/http/cursors.test.ts", // RFC 9865 cursors over the store's order
  "test/http/custom-resource-type.test.ts", // members of a host-defined type, `members.value eq`
  "test/http/discovery.test.ts", // what is advertised follows the store's capabilities
  "test/http/etags.test.ts", // versions and If-Match decided by the store
  "test/http/events-and-errors.test.ts", // events after the store's commit, never for a rolled-back write
  "test/http/existing-users.test.ts", // racing POSTs of one user: the store's uniqueness picks one 201
  "test/http/groups.test.ts", // members, nested groups, displayName uniqueness
  "test/http/hostile-corpus.test.ts", // hostile filters, ids and values all the way into SQL
  "test/http/lists.test.ts", // filters, sorting and paging pushed down to SQL
  "test/http/membership-patch.test.ts", // a membership delta written without a read: the store's answer
  "test/http/root-search.test.ts", // one query over every resource type
  "test/http/unicode-names.test.ts", // NFC and NFD names are one unique key
  "test/http/users.test.ts", // case-insensitive userName uniqueness, PUT and PATCH
  "test/http/whole-extension-patch.test.ts", // PATCH of a stored extension
  "test/http/write-bounds.test.ts", // the largest accepted writes, stored
  "test/http/write-only-attributes.test.ts", // a password never reaches the store
  "test/idp/replay.test.ts", // each identity provider's flows, filters and PATCHes on SQL
];

// `express4`: every `express` import — the router's own included — resolved to Express 4. The
// files that reach what differs between Express 4 and 5 (the router's path syntax and parameter
// decoding, mounting with merged parameters, error handlers and async rejections, body reading,
// the query parser, res.send/res.json and freshness); the rest of the suite calls the same
// handlers through the same surfaces.
const express4HttpTests = [
  "test/http/express-version.test.ts", // the alias reaches the router: this project is Express 4
  "test/http/auth-and-tenancy.test.ts", // `:orgId` from the mount path (mergeParams), or a fixed organization
  "test/http/bulk.test.ts", // /Bulk's own body reading and limits, before the other routes' parser
  "test/http/discovery.test.ts", // parameter routes whose values hold `:` and `.` (schema URNs)
  "test/http/etags.test.ts", // ETag and If-None-Match next to Express's own freshness check in res.send
  "test/http/events-and-errors.test.ts", // thrown and rejected errors reaching the error handler (Express 4 drops rejections)
  "test/http/hostile-corpus.test.ts", // hostile paths and ids (`__proto__`, %00) through Express's router and params
  "test/http/lists.test.ts", // repeated and malformed query parameters (Express 4 parses queries with qs)
  "test/http/oauth-token-endpoint.test.ts", // a urlencoded form body on a router of its own
  "test/http/request-log.test.ts", // X-Request-Id on every answer and the response read back as it was sent
  "test/http/root-search.test.ts", // the `/` and `/.search` routes
  "test/http/transport.test.ts", // media types, body limits, malformed bodies, Location under Host and a trusted proxy
  "test/http/transport-errors.test.ts", // malformed %-escapes in the router and the app's own layer, 100-continue
  "test/http/transport-large-body.test.ts", // a refused body drained or the connection closed, on a real socket
];

// Files that replace a module with `vi.mock` (a counting `timingSafeEqual`, a spied filter
// evaluator): each gets a fresh module graph, so the replacement never leaks into another file.
const moduleMockTests = [
  "src/auth/hashed-token-store.test.ts",
  "src/auth/static-token-verifier.test.ts",
  "src/store/memory/memory-store.pushdown.test.ts",
];

const express4 = fileURLToPath(new URL("./node_modules/express4", import.meta.url));

// Both extra projects change only the router's Express or the default store, which a PostgreSQL
// block never uses (it opens its own store): `describePostgres` skips those blocks there, saying so.
const postgresInExpress5 = "the express5 project runs it; this project changes nothing a PostgreSQL store sees";

// `scimkit/…` imports (the examples, as a user's app) resolve by package self-reference to src/
// through the `scimkit-source` export condition, as tsc (customConditions) and `npm start` do.
const conditions = ["scimkit-source", ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    environment: "node",
    // A watchdog, not a measure: vitest's 5 s default cut database and process tests on a loaded
    // 2-core machine (load 14: a migration test at 5.4 s). Tests assert behaviour, never durations.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: testWorkers(),
    sequence: { sequencer: ProcessTestsFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
          exclude: [...httpTests, ...moduleMockTests, "**/node_modules/**"],
          globalSetup: ["test/compiled-sources.global-setup.ts"],
          // One module graph per worker, not per file: importing the library afresh for each of
          // ~200 files cost more than their tests (a third of the suite's time on 2 cores). Every
          // file already opens its own stores, schemas, ports and directories.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: "unit-module-mocks", include: moduleMockTests },
      },
      {
        extends: true,
        test: { name: "express5", include: httpTests, isolate: false, env: { SCIMKIT_EXPRESS_MAJOR: "5" } },
      },
      {
        extends: true,
        test: {
          name: "express5-sqlite",
          include: sqliteHttpTests,
          isolate: false,
          env: { SCIMKIT_EXPRESS_MAJOR: "5", SCIMKIT_HTTP_STORE: "sqlite", SCIMKIT_POSTGRES_ELSEWHERE: postgresInExpress5 },
        },
      },
      {
        extends: true,
        resolve: { alias: [{ find: /^express$/, replacement: express4 }] },
        test: {
          name: "express4",
          include: express4HttpTests,
          isolate: false,
          env: { SCIMKIT_EXPRESS_MAJOR: "4", SCIMKIT_POSTGRES_ELSEWHERE: postgresInExpress5 },
        },
      },
    ],
  },
});
