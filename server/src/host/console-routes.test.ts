/**
 * How the host serves the built console: its CSP on every answer, cache headers, client routes,
 * and a 503 that says how to build it when there is no build.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CONSOLE_CSP, consoleRoutes } from "./console-routes.js";

const scratch = mkdtempSync(join(tmpdir(), "scimkit-console-routes-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** An app with the console mounted at /console from `dir`; answers its origin. */
async function serve(dir: string): Promise<string> {
  const app = express();
  app.use("/console", consoleRoutes(dir));
  const server = app.listen(0);
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}

function build(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, "assets"), { recursive: true });
  writeFileSync(join(dir, "index.html"), '<!doctype html><script type="module" src="/console/assets/app-1.js"></script>');
  writeFileSync(join(dir, "assets", "app-1.js"), "console.log(1);");
  return dir;
}

describe("the console's routes", () => {
  it("serves index.html for the console and its client routes, revalidated, with the CSP", async () => {
    const origin = await serve(build("routes"));
    for (const path of ["/console", "/console/", "/console/log", "/console/organizations/acme?x=1"]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(response.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await response.text()).toContain("/console/assets/app-1.js");
    }
    expect(CONSOLE_CSP).not.toContain("unsafe-inline");
  });

  it("caches hashed assets for a year, and answers a missing one 404, not index.html", async () => {
    const origin = await serve(build("assets"));
    const asset = await fetch(`${origin}/console/assets/app-1.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/javascript/);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    const missing = await fetch(`${origin}/console/assets/app-0.js`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("reload the page");
  });

  it("answers 405 to anything but GET and HEAD", async () => {
    const origin = await serve(build("methods"));
    const posted = await fetch(`${origin}/console/organizations`, { method: "POST", body: "x" });
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET, HEAD");
  });

  it("serves a new build's index.html without a restart", async () => {
    const dir = build("rebuilt");
    const origin = await serve(dir);
    expect(await (await fetch(`${origin}/console/`)).text()).toContain("app-1.js");
    writeFileSync(join(dir, "index.html"), '<!doctype html><script type="module" src="/console/assets/app-2.js"></script>');
    // A later modification time, whatever the file system's resolution.
    utimesSync(join(dir, "index.html"), new Date(), new Date(Date.now() + 5000));
    expect(await (await fetch(`${origin}/console/`)).text()).toContain("app-2.js");
  });

  it("without a build answers 503 saying to run npm run build, and serves a build made later without a restart", async () => {
    const dir = join(scratch, "later");
    const origin = await serve(dir);
    const unbuilt = await fetch(`${origin}/console/`);
    expect(unbuilt.status).toBe(503);
    expect(unbuilt.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(await unbuilt.text()).toMatch(/The operator console is not built .*npm run build/);
    build("later");
    const built = await fetch(`${origin}/console/`);
    expect(built.status).toBe(200);
  });
});
