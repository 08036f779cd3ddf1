/**
 * Before the tests that start processes (the host, the `scimkit` CLI, the fault-injection
 * children): both packages' TypeScript, transformed once into a private mirror of the repository,
 * so a test starts `node <mirror>/server/src/host/cli.js` instead of
 * `node --import tsx server/src/host/cli.ts`. Each such process used to transform its sources
 * again at start, through tsx's loader thread: about 4.8 s a start on a loaded 2-core machine,
 * against 1.4 s for the transformed files, and the CLI tests start dozens.
 *
 * The mirror is not `dist/`: `npm run build` (which `test/package-*.test.ts` run meanwhile)
 * replaces `dist/` from a clean slate, and a build type-checks, which `npm test` does once, apart.
 * Each `.ts` file becomes a `.js` file at the same path, by the transform vitest itself applies
 * to the sources (vite's oxc), so a relative import — `../../src/…` in a test's child script
 * included — and the SQLite worker thread's entry (found beside its module by `import.meta.url`)
 * resolve as in the checkout. Each package's `package.json` is the checkout's, its exports
 * pointing at the `.js` files; `node_modules/` holds links to the checkout's dependencies, and
 * `scimkit` and `@scimkit/server` are the mirror's own packages, as the workspace links them. The
 * host serves the console the checkout built (`server/dist/console`, linked).
 *
 * The entries tests start dozens of times (`bundledEntries`: the host and the CLI) are then each
 * bundled by esbuild into one file at their own path, third-party packages included: loading one
 * file instead of ~700 modules took a `--help` from 1.1 s to 0.3 s on an idle 2-core machine. Every
 * bundled module keeps its own `import.meta.url` (rewritten to its mirror path), so what it finds
 * beside itself — the SQLite worker's entry, the console's build — is where it was. Native and
 * optional packages stay outside the bundle, loaded from `node_modules/` as before.
 *
 * The mirror is named after a hash of what it is made of, so a changed source makes a new one
 * (built beside it and renamed into place, so a run never sees half of one) and an unchanged one
 * is reused by the next run.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build as bundleWithEsbuild } from "esbuild";
import { transformWithOxc } from "vite";
import type { TestProject } from "vitest/node";

const repository = fileURLToPath(new URL("../", import.meta.url));
/** The packages of the workspace, by their folder in the repository ("" is the root's). */
const packages = ["", "server"] as const;
/** The folders whose TypeScript processes run; tests themselves run in vitest, not in a child. */
const sourceFolders = ["src", "test", "server/src", "server/test"] as const;

/** The process entries bundled into one file each (repository-relative, `.ts`). */
const bundledEntries = ["server/src/host/cli.ts", "src/store/sql/sqlite-worker/sqlite-worker-entry.ts"] as const;
/** Packages a bundle loads from `node_modules/`: a native addon, and optional ones that may be absent. */
const unbundledPackages = ["better-sqlite3", "pg-native", "pg-cloudflare"];

/** Every `.ts` file a process may load, repository-relative, sorted: neither a test nor a declaration. */
function sourceFiles(): string[] {
  const files: string[] = [];
  for (const folder of sourceFolders) {
    for (const entry of readdirSync(join(repository, folder), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts") || entry.name.endsWith(".d.ts")) continue;
      files.push(relative(repository, join(entry.parentPath, entry.name)));
    }
  }
  return files.sort();
}

/** A package's manifest in the mirror: every export is its source's `.js` twin. */
function mirroredManifest(folder: string): string {
  const manifest = JSON.parse(readFileSync(join(repository, folder, "package.json"), "utf8")) as {
    exports: Record<string, string | Record<string, string>>;
    [field: string]: unknown;
  };
  const exports: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const source = typeof target === "string" ? target : target["scimkit-source"];
    if (source === undefined) throw new Error(`${folder || "."}/package.json exports["${subpath}"] has no scimkit-source condition`);
    exports[subpath] = source.replace(/\.ts$/, ".js");
  }
  return `${JSON.stringify({ ...manifest, exports }, null, 2)}\n`;
}

/** The mirror's `node_modules`: the checkout's dependencies, and the mirror's own two packages. */
function linkDependencies(mirror: string): void {
  const modules = join(repository, "node_modules");
  const linked = join(mirror, "node_modules");
  mkdirSync(join(linked, "@scimkit"), { recursive: true });
  for (const name of readdirSync(modules)) {
    if (name === "scimkit" || name === "@scimkit" || name === ".cache" || name === ".bin" || name.startsWith(".package-lock")) continue;
    symlinkSync(join(modules, name), join(linked, name));
  }
  symlinkSync("..", join(linked, "scimkit"));
  symlinkSync("../../server", join(linked, "@scimkit", "server"));
}

/**
 * Replaces each of `bundledEntries`' twins in `mirror` (being built) by a bundle of everything it
 * imports, each module's `import.meta.url` its own file's, as it will be at `final`.
 */
async function bundleEntries(mirror: string, final: string): Promise<void> {
  for (const entry of bundledEntries) {
    const twin = join(mirror, entry.replace(/\.ts$/, ".js"));
    await bundleWithEsbuild({
      entryPoints: [twin],
      outfile: `${twin}.bundle`,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "error",
      external: unbundledPackages,
      // The CommonJS packages inside an ES module bundle still `require` what they load lazily.
      banner: { js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);' },
      plugins: [
        {
          name: "own-import-meta-url",
          setup(build) {
            build.onLoad({ filter: /\.[cm]?js$/ }, (file) => {
              const code = readFileSync(file.path, "utf8");
              if (!code.includes("import.meta.url")) return undefined;
              const path = file.path.startsWith(mirror) ? final + file.path.slice(mirror.length) : file.path;
              return { contents: code.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(path).href)), loader: "js" };
            });
          },
        },
      ],
    });
    renameSync(`${twin}.bundle`, twin);
  }
}

async function build(mirror: string, final: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const result = await transformWithOxc(readFileSync(join(repository, file), "utf8"), join(repository, file), {
      lang: "ts",
      target: "es2022",
      sourcemap: false,
      // tsconfig.json's verbatimModuleSyntax: an import stays unless it says `type`.
      typescript: { onlyRemoveTypeImports: true },
    });
    const target = join(mirror, file.replace(/\.ts$/, ".js"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, result.code);
  }
  for (const folder of packages) writeFileSync(join(mirror, folder, "package.json"), mirroredManifest(folder));
  linkDependencies(mirror);
  await bundleEntries(mirror, final);
  mkdirSync(join(mirror, "server", "dist"), { recursive: true });
  symlinkSync(join(repository, "server", "dist", "console"), join(mirror, "server", "dist", "console"));
}

export default async function setup(project: TestProject): Promise<void> {
  const files = sourceFiles();
  const hash = createHash("sha256");
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  for (const folder of packages) hash.update(readFileSync(join(repository, folder, "package.json")));
  for (const file of files) hash.update(`\0${file}\0`).update(readFileSync(join(repository, file)));
  const cache = join(repository, "node_modules", ".cache", "scimkit-compiled-sources");
  const mirror = join(cache, hash.digest("hex").slice(0, 16));
  if (!existsSync(mirror)) {
    const partial = `${mirror}.${process.pid}.partial`;
    rmSync(partial, { recursive: true, force: true });
    await build(partial, mirror, files);
    try {
      renameSync(partial, mirror);
    } catch (error) {
      // Another run built the same mirror meanwhile: theirs is as good as ours.
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(mirror)) throw error;
    }
    // Mirrors of sources that have since changed; a run still using one has its files open.
    for (const name of readdirSync(cache))
      if (join(cache, name) !== mirror && !name.endsWith(".partial")) rmSync(join(cache, name), { recursive: true, force: true });
  }
  project.provide("compiledSources", mirror);
}
