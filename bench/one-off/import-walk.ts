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
import { seedUsers, settle } from "../lib/control-client.js";
import { describeWalk, importWalk } from "../lib/import-walk.js";
import { formatVersion, sourceVersion } from "../lib/source-version.js";
import { startTarget } from "../lib/target-process.js";

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
    const { byIndex, byCursor } = await importWalk(target, pageSize);
    say(`  startIndex walk: ${describeWalk(byIndex)}`);
    if (byCursor === undefined) throw new Error("the target serves no cursor");
    say(`  cursor walk:     ${describeWalk(byCursor)}`);
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
