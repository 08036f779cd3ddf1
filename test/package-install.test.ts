import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtPackages } from "./built-packages.fixture.js";

/**
 * The packages as a user gets them (issue 13, point 5; issue 28, point 1): both built, packed, and
 * installed into fresh folders outside the repository — the library with Express into an
 * ES-module app and a CommonJS app, where README.md's quick start runs as written (`import` in
 * one, `require` in the other) serving a real SCIM request; the library and the service together
 * into a third folder, whose `scimkit` command runs from the built files.
 */
const run = promisify(execFile);
const repository = resolve(".");
const typescript = join(repository, "node_modules", "typescript", "bin", "tsc");

/** What a user's `npm` sees: none of the variables `npm test` sets for its own script (its project root above all). */
const npmEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_(config_local_prefix$|package_|lifecycle_)/.test(name) && name !== "NODE_OPTIONS"),
);

/** The versions this repository is tested with, from its lockfile: what the apps install next to the tarball. */
const locked = (JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, { version: string }> }).packages;
const pinned = (name: string): string => {
  const entry = locked[`node_modules/${name}`];
  if (!entry) throw new Error(`${name} is not in package-lock.json`);
  return `${name}@${entry.version}`;
};
// @types/express: a TypeScript user's.
const companions = ["express", "@types/express"].map(pinned);

/** A README.md code block by the file name on its first line (`// server.mjs`), so the test runs what the README shows. */
function readmeSnippet(file: string): string {
  const readme = readFileSync("README.md", "utf8");
  const block = [...readme.matchAll(/```js\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? "")
    .find((code) => code.startsWith(`// ${file}\n`));
  if (!block) throw new Error(`README.md has no \`\`\`js block starting with "// ${file}"`);
  return block;
}

/** The entry points and one function each exports, looked for through `import` and `require`. */
const entries: Record<string, string> = {
  scimkit: "createScimRouter",
  "scimkit/core": "parseFilter",
  "scimkit/store": "resourceView",
  "scimkit/memory": "memoryStore",
  // Loads its drivers (better-sqlite3, pg: optional peers, not installed here) only when a store is opened.
  "scimkit/sql": "sqlStore",
  "scimkit/events": "securityEventDelivery",
  "scimkit/oauth": "createOAuthTokenRouter",
  "scimkit/audit": "memoryAuditTrail",
  "scimkit/request-log": "memoryRequestLog",
  "scimkit/rate-limit": "tokenBucketLimiter",
  "scimkit/fair-share": "fairShareGate",
  "scimkit/body": "jsonBodyParser",
  "scimkit/cursor": "sealCursor",
  // scimkit/testkit is not loaded: it imports vitest, an optional peer installed by the apps that run it
  // (and the built testkit is exercised by this repository's own conformance tests). Its `require`
  // target is checked to resolve.
};

interface Packed {
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

/** Node.js's own require(esm) (20.19+, 22.12+); without it, `require` takes the shim's error path. */
const requiresEsm = (process.features as { require_module?: boolean }).require_module === true;

describe("the packed package, installed into fresh apps", () => {
  const root = mkdtempSync(join(tmpdir(), "scimkit-install-"));
  const esmApp = join(root, "esm-app");
  const cjsApp = join(root, "cjs-app");
  const serviceApp = join(root, "service");
  let packed: Packed;
  let packedService: Packed;
  const servers: ChildProcess[] = [];

  beforeAll(async () => {
    // One build of both (the service's builds the library first), shared with the build and container
    // tests, then each packed as built: `prepack` would build the library twice more.
    await builtPackages();
    const pack = async (...workspace: string[]): Promise<Packed> => {
      const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", ...workspace, "--pack-destination", root], {
        cwd: repository,
        env: npmEnv,
        maxBuffer: 64 << 20,
      });
      return (JSON.parse(stdout) as [Packed])[0];
    };
    packed = await pack();
    packedService = await pack("--workspace=@scimkit/server");
    const tarball = join(root, packed.filename);
    const install = async (app: string, type: string, packages: readonly string[], ...flags: string[]): Promise<void> => {
      mkdirSync(app);
      writeFileSync(join(app, "package.json"), JSON.stringify({ name: `scimkit-${type}-app`, private: true, type }));
      await run("npm", ["install", ...packages, "--no-audit", "--no-fund", "--prefer-offline", ...flags], {
        cwd: app,
        env: npmEnv,
        maxBuffer: 64 << 20,
      });
    };
    await Promise.all([
      install(esmApp, "module", [tarball, ...companions]),
      install(cjsApp, "commonjs", [tarball, ...companions]),
      // Without install scripts: better-sqlite3 would compile for a minute, and the commands run here use `memory:`.
      install(serviceApp, "module", [tarball, join(root, packedService.filename)], "--ignore-scripts"),
    ]);
  }, 360_000);

  afterAll(() => {
    for (const server of servers) server.kill();
    rmSync(root, { recursive: true, force: true });
  });

  it("ships the build and the docs, not the sources, tests or fixtures", () => {
    for (const [folder, tarball] of [
      [".", packed],
      ["server", packedService],
    ] as const) {
      const paths = tarball.files.map((file) => file.path);
      expect(paths.filter((path) => path.startsWith("src/"))).toEqual([]);
      expect(paths.filter((path) => /\.(test|fixture)\./.test(path))).toEqual([]);
      expect(paths.filter((path) => path.startsWith("console/"))).toEqual([]);
      const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as {
        exports: Record<string, string | Record<string, string>>;
      };
      for (const [subpath, target] of Object.entries(manifest.exports)) {
        if (typeof target === "string") continue;
        // Every condition but the repository's own one (`scimkit-source`, first, for tsc, vitest and tsx) names a shipped file.
        expect(Object.keys(target)[0], subpath).toBe("scimkit-source");
        for (const [condition, file] of Object.entries(target).slice(1))
          expect(paths, `${folder} ${subpath} ${condition}`).toContain(file.replace(/^\.\//, ""));
      }
    }
    // The library carries nothing of the service; the service carries the operator console, built:
    // the host serves it from beside its own compiled files.
    expect(packed.files.map((file) => file.path).filter((path) => /^dist\/(host|analytics|console)\//.test(path))).toEqual([]);
    expect(packedService.files.map((file) => file.path)).toContain("dist/console/index.html");
  });

  it("imports the service's entries beside the library's in the service's folder", { timeout: 60_000 }, async () => {
    const probe = `const server = await import("@scimkit/server"); const kit = await import.meta.resolve("@scimkit/server/testkit");
      console.log(JSON.stringify({ router: typeof server.createAnalyticsRouter, sql: typeof server.sqlAnalyticsStore, kit: kit.endsWith("/dist/testkit/index.js") }));`;
    expect(await node(serviceApp, ["--input-type=module", "-e", probe])).toEqual({ router: "function", sql: "function", kit: true });
  });

  it("installs the scimkit command with the service, which runs from the built files", { timeout: 60_000 }, async () => {
    const bin = join(serviceApp, "node_modules", ".bin", "scimkit");
    expect((await run(bin, ["--version"], { cwd: serviceApp })).stdout.trim()).toBe(
      JSON.parse(readFileSync("server/package.json", "utf8")).version,
    );
    // memory: needs no database driver (installed here without their build scripts).
    const migrated = await run(bin, ["migrate"], { cwd: serviceApp, env: { ...process.env, DATABASE_URL: "memory:" } });
    expect(migrated.stdout).toMatch(/up to date/);
    const unknown = await run(bin, ["frobnicate"], { cwd: serviceApp }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"[\s\S]*Usage: scimkit <command>/);
  });

  it("runs the README's quick start in an ES-module app", { timeout: 60_000 }, async () => {
    writeFileSync(join(esmApp, "server.mjs"), readmeSnippet("server.mjs"));
    await provision(start(esmApp, "server.mjs"));
  });

  it.runIf(requiresEsm)("runs the README's quick start in a CommonJS app, through require", { timeout: 60_000 }, async () => {
    writeFileSync(join(cjsApp, "server.cjs"), readmeSnippet("server.cjs"));
    await provision(start(cjsApp, "server.cjs"));
  });

  it("imports every entry point by name in the ES-module app", { timeout: 60_000 }, async () => {
    const probe = `const found = {};
      for (const [name, fn] of Object.entries(${JSON.stringify(entries)})) found[name] = typeof (await import(name))[fn];
      console.log(JSON.stringify(found));`;
    expect(await node(esmApp, ["--input-type=module", "-e", probe])).toEqual(
      Object.fromEntries(Object.keys(entries).map((name) => [name, "function"])),
    );
  });

  // Also proves no module behind an entry uses top-level await, which require(esm) refuses (ERR_REQUIRE_ASYNC_MODULE).
  it.runIf(requiresEsm)(
    "requires every entry point by name in the CommonJS app, getting the ES module's namespace",
    { timeout: 60_000 },
    async () => {
      const probe = `const found = {};
      for (const [name, fn] of Object.entries(${JSON.stringify(entries)})) found[name] = typeof require(name)[fn];
      // One copy of each module behind every entry: the store's refusal is the core's ScimError.
      found.sameInstance = require("scimkit/store").uniquenessError("userName") instanceof require("scimkit/core").ScimError;
      found.testkit = require.resolve("scimkit/testkit");
      console.log(JSON.stringify(found));`;
      expect(await node(cjsApp, ["-e", probe])).toEqual({
        ...Object.fromEntries(Object.keys(entries).map((name) => [name, "function"])),
        sameInstance: true,
        testkit: join(realpathSync(cjsApp), "node_modules", "scimkit", "dist", "testkit", "index.cjs"),
      });
    },
  );

  it("says what to do where Node.js cannot require an ES module", { timeout: 60_000 }, async () => {
    // Where require(esm) is on, turning it off makes this Node.js behave as an older one does.
    const flags = requiresEsm ? ["--no-experimental-require-module"] : [];
    for (const name of [...Object.keys(entries), "scimkit/testkit"]) {
      const failed = await run(process.execPath, [...flags, "-e", `require(${JSON.stringify(name)})`], { cwd: cjsApp, env: npmEnv }).then(
        () => undefined,
        (error: { stderr: string }) => error.stderr,
      );
      expect(failed, name).toContain(`${name} is an ES module, and Node.js ${process.version} cannot require() ES modules`);
      expect(failed, name).toContain(`await import("${name}")`);
      expect(failed, name).toContain("20.19+ or 22.12+");
    }
  });

  it("gives TypeScript the types in both apps (CommonJS under module nodenext)", { timeout: 60_000 }, async () => {
    const check = `import { createScimRouter, createTokenStore } from "scimkit";
      import { memoryStore } from "scimkit/memory";
      import { parseFilter } from "scimkit/core";
      const router = createScimRouter({ store: memoryStore(), auth: createTokenStore() });
      router.use(() => undefined);
      parseFilter('userName eq "ada"');
      // @ts-expect-error: typed options, not any
      createScimRouter({ store: memoryStore(), auth: createTokenStore(), notAnOption: true });
    `;
    for (const [app, file] of [
      [esmApp, "check.ts"],
      [cjsApp, "check.cts"],
    ] as const) {
      writeFileSync(join(app, file), check);
      const config = { compilerOptions: { module: "nodenext", strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: [file] };
      writeFileSync(join(app, "tsconfig.json"), JSON.stringify(config));
      await expect(
        run(process.execPath, [typescript, "-p", app], { cwd: app }).then(
          () => "typed",
          (error: { stdout: string }) => error.stdout,
        ),
      ).resolves.toBe("typed");
    }
  });

  /** `node file` in `app` on a free port, with the base URL and token it prints. */
  async function start(app: string, file: string): Promise<{ base: string; token: string }> {
    const server = spawn(process.execPath, [file], { cwd: app, env: { ...npmEnv, PORT: "0" }, stdio: ["ignore", "pipe", "pipe"] });
    servers.push(server);
    let output = "";
    return await new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`${file} printed no base URL and token in 20 s:\n${output}`)), 20_000);
      const read = (chunk: Buffer): void => {
        output += chunk.toString();
        const base = /SCIM base URL for acme: (http:\/\/localhost:\d+\S*)/.exec(output)?.[1];
        const token = /Bearer token for acme: (\S+)/.exec(output)?.[1];
        if (base && token) {
          clearTimeout(timer);
          // The server listens on every interface; 127.0.0.1 avoids localhost resolving to an IPv6 address a CI container lacks.
          done({ base: base.replace("//localhost:", "//127.0.0.1:"), token });
        }
      };
      server.stdout.on("data", read);
      server.stderr.on("data", read);
      server.on("exit", (code) => fail(new Error(`${file} exited with ${code}:\n${output}`)));
    });
  }
});

/** A user created, then read back, with the token the app printed; and refused without it. */
async function provision(started: Promise<{ base: string; token: string }>): Promise<void> {
  const { base, token } = await started;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/scim+json" };
  const created = await fetch(`${base}/Users`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: "ada@example.com",
      name: { givenName: "Ada", familyName: "Lovelace" },
    }),
  });
  const user = (await created.json()) as { id: string; userName: string };
  expect(created.status, JSON.stringify(user)).toBe(201);
  expect(user.userName).toBe("ada@example.com");

  const read = await fetch(`${base}/Users/${user.id}`, { headers });
  expect(read.status).toBe(200);
  expect(await read.json()).toMatchObject({ id: user.id, userName: "ada@example.com", name: { givenName: "Ada", familyName: "Lovelace" } });

  expect((await fetch(`${base}/Users/${user.id}`)).status).toBe(401);
}

/** What a `node` process in `app` printed as JSON. */
async function node(app: string, args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, args, { cwd: app, env: npmEnv });
  return JSON.parse(stdout) as unknown;
}
