/**
 * The container (issue 14): docker is not on the CI machine, so scripts/container-smoke.sh runs
 * the Dockerfile's build and run steps as a script — build, prune to the runtime dependencies,
 * `node server/dist/host/cli.js serve` from the two packages' package.json and dist/ and node_modules alone — and probes it:
 * /healthz, /readyz, a SCIM POST and GET with the printed demo token, SIGTERM, exit code 0. Here it
 * copies this checkout's node_modules instead of `npm ci`, to stay fast and off the registry, and
 * the build the package tests share (`builtPackages`, the same `scripts/build.mjs server` the
 * Dockerfile's `npm run build --workspace=@scimkit/server` runs) instead of building a third time.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { builtPackages } from "./built-packages.fixture.js";

describe("the container's steps, without docker", () => {
  beforeAll(builtPackages, 600_000);

  it("build, prune, serve from dist/, answer the health checks and SCIM, stop on SIGTERM with exit code 0", {
    timeout: 150_000,
  }, async () => {
    const smoke = spawn("bash", ["scripts/container-smoke.sh"], {
      env: { ...process.env, SMOKE_REUSE_NODE_MODULES: "1", SMOKE_REUSE_BUILD: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    smoke.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    smoke.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const [code] = await once(smoke, "exit");
    expect(code, output).toBe(0);
    expect(output).toMatch(/\/healthz and \/readyz answer 200/);
    expect(output).toMatch(/SIGTERM: graceful shutdown, exit code 0/);
  });

  it("runs the Dockerfile's commands: the script names each of the Dockerfile's RUN and CMD steps", () => {
    const dockerfile = readFileSync("Dockerfile", "utf8");
    const script = readFileSync("scripts/container-smoke.sh", "utf8");
    const steps = [...dockerfile.matchAll(/^RUN (npm [^\n]*)$/gm)].map((match) => match[1]);
    expect(steps).toEqual([
      "npm ci --no-audit --no-fund",
      "npm run build --workspace=@scimkit/server",
      "npm prune --omit=dev --no-audit --no-fund",
    ]);
    for (const step of [...steps, "node server/dist/host/cli.js serve"]) {
      expect(script, step).toContain(step);
    }
    expect(dockerfile).toContain('CMD ["node", "server/dist/host/cli.js", "serve"]');
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/healthz/m);
  });
});
