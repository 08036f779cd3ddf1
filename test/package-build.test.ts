import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// `npm run build` must emit an importable ESM package with declarations (issue: the package).
describe("the built package", () => {
  const outDir = mkdtempSync(join(tmpdir(), "scimkit-build-"));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("compiles with tsc into JavaScript and declaration files", { timeout: 120_000 }, async () => {
    execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json", "--outDir", outDir], {
      stdio: "pipe",
    });
    expect(existsSync(join(outDir, "index.js"))).toBe(true);
    expect(existsSync(join(outDir, "index.d.ts"))).toBe(true);
    expect(existsSync(join(outDir, "scim", "patch", "apply-patch.d.ts"))).toBe(true);
    // Test helpers stay out of the package.
    expect(existsSync(join(outDir, "scim", "sample-resources.fixture.js"))).toBe(false);

    const built = (await import(pathToFileURL(join(outDir, "index.js")).href)) as Record<string, unknown>;
    for (const name of ["parseFilter", "matchesFilter", "applyPatch", "ScimError", "createSchemaRegistry", "createProjection"]) {
      expect(typeof built[name], name).toBe("function");
    }
  });
});
