// The operator console's build (scripts/build-console.mjs runs it): console/ → dist/console/,
// served by the host at /console under a CSP without 'unsafe-inline' (src/host/console-routes.ts).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  // Preact's automatic JSX runtime: the components import nothing from React.
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  resolve: { alias: [{ find: /^react(-dom)?$/, replacement: "preact/compat" }] },
  build: {
    outDir: fileURLToPath(new URL("../dist/console/", import.meta.url)),
    emptyOutDir: true,
    // The polyfill is injected as code the CSP would have to allow; every browser the console
    // targets supports <link rel="modulepreload">.
    modulePreload: { polyfill: false },
    // Never inline an asset as a data: URL into a script or a style attribute.
    assetsInlineLimit: 0,
    sourcemap: true,
    target: "es2022",
  },
  logLevel: "warn",
});
