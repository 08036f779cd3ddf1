/**
 * The import walk (issue 29): an identity provider's full import, every page of 100 one after
 * another on one connection — by `startIndex` (Okta's way) and by RFC 9865 cursor — timed whole,
 * on one target seeded with N users. With `--a-root` and `--b-root`, two commits are walked on the
 * same seeded size, side by side.
 *
 *   npx tsx bench/one-off/import-walk.ts --store=sqlite --n=100000 [--a-root=/work/wt/base] [--b-root=.]
 *
 * Prints each walk's total time, its pages per second and its slowest page, and writes them to
 * `bench/results/<date>-import-walk.json`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { flags } from "../lib/bench-config.js";
import { scimGet, seedUsers, settle } from "../lib/control-client.js";
import { formatVersion, sourceVersion } from "../lib/source-version.js";
import { startTarget, type RunningTarget } from "../lib/target-process.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const given = flags(process.argv.slice(2));
const store = given.get("store") ?? "sqlite";
const n = Number(given.get("n") ?? 100_000);
const pageSize = 100;
const roots = [given.get("a-root"), given.get("b-root")].filter((root): root is string => root !== undefined).map((root) => resolve(root));
if (roots.length === 0) roots.push(repoRoot);
const say = (line: string): void => {
  process.stdout.write(`[import-walk ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

interface Walk {
  readonly pages: number;
  readonly resources: number;
  readonly totalMs: number;
  readonly pagesPerSecond: number;
  readonly slowestPageMs: number;
  readonly lastPageMs: number;
}

/** Walks the whole list: `next` gives each request's path from the page before; stops at the first short page. */
async function walk(next: (previous: Record<string, unknown> | undefined) => string | undefined, target: RunningTarget): Promise<Walk> {
  let previous: Record<string, unknown> | undefined;
  let pages = 0;
  let resources = 0;
  let slowest = 0;
  let last = 0;
  const started = performance.now();
  for (let path = next(undefined); path !== undefined; path = next(previous)) {
    const before = performance.now();
    const { status, body } = await scimGet(target, path);
    last = performance.now() - before;
    slowest = Math.max(slowest, last);
    if (status !== 200 || !body) throw new Error(`${path} → ${status}`);
    const listed = Array.isArray(body["Resources"]) ? body["Resources"].length : 0;
    pages += 1;
    resources += listed;
    previous = listed < pageSize ? undefined : body;
    if (previous === undefined) break;
  }
  const totalMs = performance.now() - started;
  return { pages, resources, totalMs, pagesPerSecond: pages / (totalMs / 1000), slowestPageMs: slowest, lastPageMs: last };
}

const results: Record<string, unknown>[] = [];
for (const root of roots) {
  const target = await startTarget({
    entry: "bench/targets/scimkit-target.ts",
    env: {
      PORT: "0",
      STORE: store,
      ...(store === "postgres" ? { SCIMKIT_BENCH_POSTGRES_URL: given.get("postgres") ?? "postgres://postgres@127.0.0.1:5432/test" } : {}),
    },
    nodeArgs: [],
    logDir: join(tmpdir(), `scimkit-import-walk-${process.pid}`),
    logName: `target-${results.length}`,
    cwd: root,
  });
  try {
    const seedStart = performance.now();
    await seedUsers(target, 0, n, 10_000);
    await settle(target);
    const version = formatVersion(sourceVersion(root));
    say(`${root} (${version}): ${target.ready.description}, ${n} users seeded in ${((performance.now() - seedStart) / 1000).toFixed(0)} s`);
    const byIndex = await walk((previous) => {
      if (previous === undefined) return `/Users?startIndex=1&count=${pageSize}`;
      const start = Number(previous["startIndex"]) + Number(previous["itemsPerPage"]);
      return `/Users?startIndex=${start}&count=${pageSize}`;
    }, target);
    say(
      `  startIndex walk: ${byIndex.pages} pages, ${byIndex.resources} users in ${(byIndex.totalMs / 1000).toFixed(1)} s (${byIndex.pagesPerSecond.toFixed(0)} pages/s, slowest page ${byIndex.slowestPageMs.toFixed(0)} ms, last ${byIndex.lastPageMs.toFixed(0)} ms)`,
    );
    const byCursor = await walk((previous) => {
      if (previous === undefined) return `/Users?cursor=&count=${pageSize}`;
      const cursor = previous["nextCursor"];
      return typeof cursor === "string" ? `/Users?cursor=${encodeURIComponent(cursor)}&count=${pageSize}` : undefined;
    }, target);
    say(
      `  cursor walk:     ${byCursor.pages} pages, ${byCursor.resources} users in ${(byCursor.totalMs / 1000).toFixed(1)} s (${byCursor.pagesPerSecond.toFixed(0)} pages/s, slowest page ${byCursor.slowestPageMs.toFixed(0)} ms, last ${byCursor.lastPageMs.toFixed(0)} ms)`,
    );
    say(`  startIndex ÷ cursor: ${(byIndex.totalMs / byCursor.totalMs).toFixed(2)}×`);
    results.push({ root, version, store, n, description: target.ready.description, byIndex, byCursor });
  } finally {
    await target.stop();
  }
}
const file = join(repoRoot, "bench", "results", `${new Date().toISOString().replace(/[:.]/g, "-").slice(0, 19)}Z-import-walk.json`);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), results }, null, 1)}\n`);
say(`wrote ${file}`);
