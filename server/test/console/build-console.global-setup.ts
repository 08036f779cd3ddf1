/**
 * Before the browser tests: builds the console (scripts/build-console.mjs) when dist/console is
 * missing or older than a file under console/, so the tests never drive a stale build.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The newest modification time of a file under `dir`. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

export default function setup(): void {
  const built = join(root, "dist", "console", "index.html");
  if (existsSync(built) && statSync(built).mtimeMs >= newest(join(root, "console"))) return;
  const result = spawnSync(process.execPath, [join(root, "scripts", "build-console.mjs")], { cwd: root, stdio: "inherit" });
  if (result.status !== 0)
    throw new Error(`scripts/build-console.mjs failed (exit ${result.status}): the console cannot be tested unbuilt`);
}
