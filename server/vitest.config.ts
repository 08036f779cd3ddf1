import { fileURLToPath } from "node:url";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";
import { ProcessTestsFirstSequencer } from "../test/process-tests-first-sequencer.js";
import { testWorkers } from "../test/test-workers.js";

// The service's suite (`npm test` here, or from the repository root after the library's). Every
// HTTP test runs on Express 5 with the memory stores (`server-express5`); two projects run some of
// them again, each for what it changes, as the library's vitest.config.ts explains.
const httpTests = ["test/http/**/*.test.ts", "test/analytics/**/*.test.ts"];

// `server-express5-sqlite`: the analytics interface reads and writes through the project's stores
// (test/analytics/analytics-harness.ts) — the SQL analytics store on SQLite here — for nearly
// every answer: scoping to an admin's organizations, filters, cursors, trees, reports, tokens. Left
// out: files that never use the project's stores, and those answered before a store is asked.
const sqliteHttpTests = [
  "test/analytics/admin-privacy.test.ts", // what an admin may see of other admins and organizations
  "test/analytics/admin-users.test.ts", // invitations and grants, stored
  "test/analytics/attack-simulations.test.ts", // aggregates and filters in SQL
  "test/analytics/audit.test.ts", // the audit trail on the store's own database
  "test/analytics/authentication.test.ts", // API keys are the analytics store's
  "test/analytics/campaigns.test.ts", // aggregates, filters, overdue learners in SQL
  "test/analytics/directory.test.ts", // SCIM users and groups searched and paged through the store
  "test/analytics/event-receivers.test.ts", // receivers and their delivery state, stored
  "test/analytics/event-signing-key.test.ts", // the signing keys' repository
  "test/analytics/every-operation.test.ts", // another organization's ids are 404 from the store's scoping
  "test/analytics/grant-scope.test.ts", // grants checked against stored scopes
  "test/analytics/hostile-input.test.ts", // hostile values all the way into SQL
  "test/analytics/operations.test.ts", // report rows over more than one page
  "test/analytics/organization-tree.test.ts", // cycles, depth and subtree deletes in SQL
  "test/analytics/organizations.test.ts", // status filter, delete with everything of the organization
  "test/analytics/paging.test.ts", // cursors bound to their query, over SQL order
  "test/analytics/report-lifetime.test.ts", // durable operations, leases, takeover
  "test/analytics/request-log.test.ts", // the log's organizations through the analytics store
  "test/analytics/subtree-delete-race.test.ts", // a delete racing creates, in transactions
  "test/analytics/tokens.test.ts", // the SCIM token lifecycle on the SQL token store
  "test/analytics/users.test.ts", // learners read from the SCIM data in SQL
];

// `server-express4`: every `express` import resolved to Express 4, for the files that reach what
// differs between Express 4 and 5 (see the library's vitest.config.ts).
const express4HttpTests = [
  "test/analytics/every-operation.test.ts", // every route, its `{id}` turned into `:id`, answered per the document
  "test/analytics/openapi.test.ts", // the router's routes read back and every documented path served
  "test/analytics/operations.test.ts", // 202 with Location, a streamed download, content negotiation
  "test/analytics/transport.test.ts", // bodies, media types, repeated parameters (qs), broken URLs, the error handler's 500
  "test/analytics/hostile-input.test.ts", // hostile paths and parameters through Express's router
  "test/http/token-secrecy.test.ts", // the host app's answers and errors never carry a token
];

const express4 = fileURLToPath(new URL("../node_modules/express4", import.meta.url));

// Both extra projects change only the routers' Express or the default stores, which a PostgreSQL
// block never uses (it opens its own store): `describePostgres` skips those blocks there, saying so.
const postgresInExpress5 = "the server-express5 project runs it; this project changes nothing a PostgreSQL store sees";

// The operator console in Debian's chromium (playwright-core), against a host process; the console
// is built first when its build is missing or older than its sources.
const browserTests = ["test/console/**/*.test.ts"];

// `scimkit` and `@scimkit/server` imports resolve to their sources through the `scimkit-source`
// export condition, as tsc (customConditions) and `npm start` do.
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
          name: "server-unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...httpTests, ...browserTests, "**/node_modules/**"],
          globalSetup: ["../test/compiled-sources.global-setup.ts"],
          // One module graph per worker, as the library's `unit` project (no file here replaces a module).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "server-browser",
          include: browserTests,
          globalSetup: ["test/console/build-console.global-setup.ts", "../test/compiled-sources.global-setup.ts"],
        },
      },
      {
        extends: true,
        test: { name: "server-express5", include: httpTests, isolate: false, env: { SCIMKIT_EXPRESS_MAJOR: "5" } },
      },
      {
        extends: true,
        test: {
          name: "server-express5-sqlite",
          include: sqliteHttpTests,
          isolate: false,
          env: { SCIMKIT_EXPRESS_MAJOR: "5", SCIMKIT_HTTP_STORE: "sqlite", SCIMKIT_POSTGRES_ELSEWHERE: postgresInExpress5 },
        },
      },
      {
        extends: true,
        resolve: { alias: [{ find: /^express$/, replacement: express4 }] },
        test: {
          name: "server-express4",
          include: express4HttpTests,
          isolate: false,
          env: { SCIMKIT_EXPRESS_MAJOR: "4", SCIMKIT_POSTGRES_ELSEWHERE: postgresInExpress5 },
        },
      },
    ],
  },
});
