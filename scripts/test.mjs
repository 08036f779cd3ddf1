// `npm test`: both packages' checks and suites, from the repository root.
//
// tsc (both packages and the console) and `biome ci .` run beside the library's vitest suite: they
// need nothing of each other, and tsc keeps one core busy for most of a minute while the suite's
// process tests wait on their children. The service's suite runs after, alone: its host and
// console tests serve server/dist/console, which the library's package tests rebuild.
//
// The library's suite writes to this terminal as it runs; the checks' output is held and printed
// once they end, so it never lands in the middle of the suite's lines.
import { spawn } from "node:child_process";

/** Runs `command` with `args`; resolves with its exit code and, when `quiet`, what it printed. */
function run(command, args, { quiet = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit", shell: process.platform === "win32" });
    const output = [];
    if (quiet) {
      child.stdout.on("data", (chunk) => output.push(chunk));
      child.stderr.on("data", (chunk) => output.push(chunk));
    }
    child.on("error", (error) => resolve({ code: 1, output: `${command}: ${error.message}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(output).toString() }));
  });
}

const npx = process.platform === "win32" ? "npx.cmd" : "npx";
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const checks = (async () => {
  const [typecheck, lint] = await Promise.all([
    run(npm, ["run", "--silent", "typecheck"], { quiet: true }),
    run(npx, ["biome", "ci", "."], { quiet: true }),
  ]);
  return [
    { name: "typecheck (npm run typecheck)", ...typecheck },
    { name: "lint (biome ci .)", ...lint },
  ];
})();
const library = await run(npx, ["vitest", "run"]);
const failed = [];
for (const check of await checks) {
  process.stdout.write(`\n== ${check.name}: ${check.code === 0 ? "passed" : `failed (exit ${check.code})`}\n${check.output}`);
  if (check.code !== 0) failed.push(check.name);
}
if (library.code !== 0) failed.push("the library's suite (vitest run)");
if (failed.length > 0) {
  process.stdout.write(`\nnpm test failed: ${failed.join(", ")}\n`);
  process.exit(1);
}
const service = await run(npm, ["test", "--workspace=@scimkit/server"]);
process.exit(service.code);
