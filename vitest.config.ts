import { fileURLToPath } from "node:url";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// HTTP tests run twice: once on Express 5 (the `express` devDependency) and once with every
// import of "express" — ours included — resolved to Express 4 (`express4`, npm:express@4).
const httpTests = ["test/http/**/*.test.ts", "test/idp/**/*.test.ts"];
const express4 = fileURLToPath(new URL("./node_modules/express4", import.meta.url));

// `scimkit/…` imports (the examples, as a user's app) resolve by package self-reference to src/
// through the `scimkit-source` export condition, as tsc (customConditions) and `npm start` do.
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
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
          exclude: [...httpTests, "**/node_modules/**"],
        },
      },
      { extends: true, test: { name: "express5", include: httpTests, env: { SCIMKIT_EXPRESS_MAJOR: "5" } } },
      // The same HTTP tests once more with the SQLite store behind the router.
      {
        extends: true,
        test: { name: "express5-sqlite", include: httpTests, env: { SCIMKIT_EXPRESS_MAJOR: "5", SCIMKIT_HTTP_STORE: "sqlite" } },
      },
      {
        extends: true,
        resolve: { alias: [{ find: /^express$/, replacement: express4 }] },
        test: { name: "express4", include: httpTests, env: { SCIMKIT_EXPRESS_MAJOR: "4" } },
      },
    ],
  },
});
