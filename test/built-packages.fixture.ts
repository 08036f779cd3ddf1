import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";

const run = promisify(execFile);
const CACHE = join("node_modules", ".cache");
const PREFIX = "scimkit-built-packages-";

/**
 * Both packages built once per test run — `node scripts/build.mjs server`: the library's dist/,
 * then the service's server/dist/ with its console — for the test files that check the build, the
 * packs and the container's steps, which each built on their own before (three builds, minutes of
 * a 2-core machine). The first file to ask builds; the others, in other workers, wait for its
 * mark. A run is told apart by the process that started the workers (vitest's, `process.ppid`).
 */
export async function builtPackages(): Promise<void> {
  mkdirSync(CACHE, { recursive: true });
  const mark = join(CACHE, `${PREFIX}${process.ppid}`);
  let builder = false;
  try {
    mkdirSync(mark);
    builder = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if (builder) {
    for (const entry of readdirSync(CACHE)) {
      if (entry.startsWith(PREFIX) && join(CACHE, entry) !== mark) rmSync(join(CACHE, entry), { recursive: true, force: true });
    }
    const outcome = await run(process.execPath, ["scripts/build.mjs", "server"], { maxBuffer: 64 << 20 }).then(
      () => "ok",
      (error: { stderr?: string; message: string }) => `the build failed: ${error.stderr || error.message}`,
    );
    writeFileSync(join(mark, "outcome"), outcome);
  }
  // Bounded by the callers' hook timeouts; a loaded machine only makes the build slower.
  while (!existsSync(join(mark, "outcome"))) await sleep(250);
  const outcome = readFileSync(join(mark, "outcome"), "utf8");
  if (outcome !== "ok") throw new Error(outcome);
}
