import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { builtPackages } from "./built-packages.fixture.js";

/** What `scimkit/core` exports at run time: the values pinned with every entry point's names (test/entry-points.test.ts). */
const CORE_NAMES = (JSON.parse(readFileSync("test/fixtures/entry-points.json", "utf8")) as Record<string, { values: string[] }>)[
  "scimkit/core"
]?.values;

// `npm run build` must emit an importable ESM package with declarations (issue: the package).
describe("the built package", () => {
  // The repository's own dist/, built once for this file and the pack and container tests: the built files
  // resolve express and uuid from node_modules, and one another by self-reference through package.json's
  // exports (the `import` condition), as in an installed package.
  const outDir = "dist";
  const cache = join("node_modules", ".cache");
  beforeAll(builtPackages, 600_000);

  it("compiles with tsc into JavaScript and declaration files", { timeout: 60_000 }, async () => {
    expect(existsSync(join(outDir, "index.js"))).toBe(true);
    expect(existsSync(join(outDir, "index.d.ts"))).toBe(true);
    expect(existsSync(join(outDir, "scim", "patch", "apply-patch.d.ts"))).toBe(true);
    // Test helpers stay out of the package.
    expect(existsSync(join(outDir, "scim", "sample-resources.fixture.js"))).toBe(false);
    // The service (host, CLI, analytics interface, console) is its own package, @scimkit/server.
    expect(existsSync(join(outDir, "host"))).toBe(false);
    expect(existsSync(join(outDir, "analytics"))).toBe(false);
    // src/ is not shipped: a source map carries its sources, and no declaration map points at files that are not there.
    const map = JSON.parse(readFileSync(join(outDir, "index.js.map"), "utf8")) as { sourcesContent?: unknown[] };
    expect(map.sourcesContent?.[0]).toBe(readFileSync(join("src", "index.ts"), "utf8"));
    expect(existsSync(join(outDir, "index.d.ts.map"))).toBe(false);

    const built = (await import(pathToFileURL(join(outDir, "index.js")).href)) as Record<string, unknown>;
    for (const name of ["createScimRouter", "scimErrorHandler", "createTokenStore", "staticTokenVerifier", "deferContinue"]) {
      expect(typeof built[name], name).toBe("function");
    }
  });

  it("builds before it is packed, so a tarball always carries dist/", () => {
    const manifest = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string>; files: string[] };
    expect(manifest.scripts["prepack"]).toBe("npm run build");
    expect(manifest.files).toContain("dist");
  });

  it("has a built file behind every subpath export, each exporting its entry point", { timeout: 120_000 }, async () => {
    const manifest = JSON.parse(readFileSync("package.json", "utf8")) as {
      exports: Record<string, { import?: string; types?: string } | string>;
    };
    const entries: Record<string, string> = {
      ".": "createScimRouter",
      "./core": "parseFilter",
      "./store": "resourceView",
      "./memory": "memoryStore",
      "./sql": "sqlStore",
      "./testkit": "describeStoreConformance",
      "./events": "securityEventDelivery",
      "./oauth": "createOAuthTokenRouter",
      "./audit": "memoryAuditTrail",
      "./request-log": "memoryRequestLog",
      "./rate-limit": "tokenBucketLimiter",
      "./fair-share": "fairShareGate",
      "./body": "jsonBodyParser",
      "./cursor": "sealCursor",
    };
    // A subpath added to package.json without a line here would go unchecked.
    expect(Object.keys(entries).sort()).toEqual(
      Object.keys(manifest.exports)
        .filter((subpath) => subpath !== "./package.json")
        .sort(),
    );
    for (const [subpath, name] of Object.entries(entries)) {
      const target = manifest.exports[subpath];
      if (typeof target !== "object" || !target.import || !target.types)
        throw new Error(`package.json exports ${subpath} lacks import/types`);
      const file = join(outDir, target.import.replace(/^\.\/dist\//, ""));
      expect(existsSync(file), file).toBe(true);
      expect(existsSync(join(outDir, target.types.replace(/^\.\/dist\//, ""))), target.types).toBe(true);
      const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      expect(typeof module[name], `${subpath} exports ${name}`).toBe("function");
    }
  });

  it("runs the built SQLite store's statements in worker threads from plain JavaScript, without tsx", { timeout: 60_000 }, async () => {
    const { sqlStore } = (await import(
      pathToFileURL(join(outDir, "store", "sql", "index.js")).href
    )) as typeof import("../src/store/sql/index.js");
    expect(existsSync(join(outDir, "store", "sql", "sqlite-worker", "sqlite-worker-entry.js"))).toBe(true);
    mkdirSync(cache, { recursive: true });
    const directory = mkdtempSync(join(cache, "scimkit-built-sqlite-"));
    try {
      const store = await sqlStore({ sqlite: join(directory, "scim.db") });
      try {
        await store.create({
          orgId: "acme",
          resourceType: "User",
          id: "ann",
          now: "2024-01-01T00:00:00.000Z",
          attributes: { userName: "ann" },
          uniqueKeys: [{ attribute: "userName", value: "ann" }],
          unknownMembers: "ignore",
        });
        expect((await store.get({ orgId: "acme", resourceType: "User", id: "ann", members: false }))?.id).toBe("ann");
      } finally {
        await store.close();
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
  it("loads no Express from scimkit/core, which exports exactly the protocol core, nor from any entry but the router's, scimkit/oauth and scimkit/body", {
    timeout: 60_000,
  }, () => {
    // Which modules a fresh process loaded: Express is CommonJS, so importing it fills require's cache.
    const probe = (entry: string): { readonly express: boolean; readonly names: readonly string[] } =>
      JSON.parse(
        execFileSync(
          process.execPath,
          [
            "--input-type=module",
            "-e",
            `import * as entry from ${JSON.stringify(pathToFileURL(join(outDir, entry)).href)};
           import { createRequire } from "node:module";
           const loaded = Object.keys(createRequire(import.meta.url).cache);
           console.log(JSON.stringify({ express: loaded.some((file) => /[\\/]node_modules[\\/]express[\\/]/.test(file)), names: Object.keys(entry).sort() }));`,
          ],
          { encoding: "utf8" },
        ),
      ) as { express: boolean; names: string[] };
    // The probe sees Express where it is loaded: the root entry mounts the router.
    expect(probe("index.js").express).toBe(true);
    const core = probe(join("core", "index.js"));
    expect(core.express).toBe(false);
    expect(core.names).toEqual(CORE_NAMES);
    // Nor does any entry but the router's and the two whose functions are Express middleware, so a job,
    // a CLI or a store of your own importing the events, the audit trail or a store loads no Express.
    // (scimkit/testkit is left out: it imports vitest, which loads only inside a vitest run.)
    const manifest = JSON.parse(readFileSync("package.json", "utf8")) as { exports: Record<string, { import?: string } | string> };
    const expressFree = Object.entries(manifest.exports).flatMap(([subpath, target]) =>
      typeof target === "object" && target.import && ![".", "./oauth", "./body", "./testkit"].includes(subpath)
        ? [[subpath, target.import.replace(/^\.\/dist\//, "")] as const]
        : [],
    );
    expect(expressFree.map(([subpath]) => subpath)).toContain("./events");
    for (const [subpath, file] of expressFree) expect(probe(file).express, subpath).toBe(false);
  });
});
