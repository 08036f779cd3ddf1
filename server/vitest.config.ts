import { fileURLToPath } from "node:url";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// The service's suite (`npm test` here, or from the repository root after the library's). HTTP
// tests run on Express 5 (the `express` devDependency), once more with the SQLite store behind
// the router, and once with every import of "express" resolved to Express 4 (`express4`).
const httpTests = ["test/http/**/*.test.ts", "test/analytics/**/*.test.ts"];
// The operator console in Debian's chromium (playwright-core), against a host process; the console
// is built first when its build is missing or older than its sources.
const browserTests = ["test/console/**/*.test.ts"];
const express4 = fileURLToPath(new URL("../node_modules/express4", import.meta.url));

// `scimkit` and `@scimkit/server` imports resolve to their sources through the `scimkit-source`
// export condition, as tsc (customConditions) and `npm start` do.
const conditions = ["scimkit-source", ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    environment: "node",
    projects: [
      {
        extends: true,
        test: {
          name: "server-unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...httpTests, ...browserTests, "**/node_modules/**"],
        },
      },
      {
        extends: true,
        test: { name: "server-browser", include: browserTests, globalSetup: ["test/console/build-console.global-setup.ts"] },
      },
      { extends: true, test: { name: "server-express5", include: httpTests, env: { SCIMKIT_EXPRESS_MAJOR: "5" } } },
      {
        extends: true,
        test: { name: "server-express5-sqlite", include: httpTests, env: { SCIMKIT_EXPRESS_MAJOR: "5", SCIMKIT_HTTP_STORE: "sqlite" } },
      },
      {
        extends: true,
        resolve: { alias: [{ find: /^express$/, replacement: express4 }] },
        test: { name: "server-express4", include: httpTests, env: { SCIMKIT_EXPRESS_MAJOR: "4" } },
      },
    ],
  },
});
