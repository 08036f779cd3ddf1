// `npm test`: both packages' checks and suites, from the repository root.
//
// 1. tsc (both packages and the console), `biome ci .` and the build of both packages
//    (`node scripts/build.mjs server`: dist/, server/dist/ and the console) run side by side.
// 2. Then the library's suite and the service's run side by side. On 2 cores, one after the other
//    left a core idle whenever a suite's process tests waited on their children. The build comes
//    first so that neither suite rebuilds server/dist/ under the other's hosts: the library's
//    package tests use it as built (SCIMKIT_PACKAGES_BUILT), and the console is fresh for the
//    service's browser tests.
//
// The library's suite writes to this terminal as it runs; every other step's output is held and
// printed when it ends, so nothing lands in the middle of the suite's lines.
import { spawn } from "node:child_process";

/** Runs `command` with `args`; resolves with its exit code and, when `quiet`, what it printed. */
function run(name, command, args, { quiet = true, env = process.env } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit", shell: process.platform === "win32" });
    const output = [];
    if (quiet) {
      child.stdout.on("data", (chunk) => output.push(chunk));
      child.stderr.on("data", (chunk) => output.push(chunk));
    }
    child.on("error", (error) => resolve({ name, code: 1, output: `${command}: ${error.message}\n` }));
    child.on("close", (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(output).toString() }));
  });
}

const npx = process.platform === "win32" ? "npx.cmd" : "npx";
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Prints each step's held output; exits non-zero, naming them, when any failed. */
function report(steps) {
  const failed = [];
  for (const step of steps) {
    process.stdout.write(`\n== ${step.name}: ${step.code === 0 ? "passed" : `failed (exit ${step.code})`}\n${step.output}`);
    if (step.code !== 0) failed.push(step.name);
  }
  if (failed.length > 0) {
    process.stdout.write(`\nnpm test failed: ${failed.join(", ")}\n`);
    process.exit(1);
  }
}

const checks = [
  run("typecheck (npm run typecheck)", npm, ["run", "--silent", "typecheck"]),
  run("lint (biome ci .)", npx, ["biome", "ci", "."]),
];
const build = await run("build (node scripts/build.mjs server)", process.execPath, ["scripts/build.mjs", "server"]);
report([build]);
const env = { ...process.env, SCIMKIT_PACKAGES_BUILT: "1" };
const service = run("the service's suite (npm test --workspace=@scimkit/server)", npm, ["test", "--workspace=@scimkit/server"], { env });
const library = await run("the library's suite (vitest run)", npx, ["vitest", "run"], { quiet: false, env });
report([...(await Promise.all(checks)), library, await service]);
