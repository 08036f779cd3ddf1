// Keeps the better-sqlite3 addon this CI run compiled where prebuild-install looks before it
// downloads, so the next run on this machine unpacks it instead of compiling for two minutes.
//
// better-sqlite3's install script is `prebuild-install || node-gyp rebuild`: prebuild-install
// fetches a prebuilt binary from GitHub, which this machine cannot reach, then node-gyp compiles
// SQLite (~2 min of one core). prebuild-install first looks in npm's cache (`_prebuilds/`) for the
// file a download would have left there, named after the download's URL — which carries the
// package's version, Node's ABI, the platform, the architecture and the libc. So a binary cached
// under that name is only ever used by the same version for the same Node. The tarball holds
// `build/Release/better_sqlite3.node`, as a release's does.
"use strict";
const { execFileSync } = require("node:child_process");
const { existsSync, mkdirSync, renameSync } = require("node:fs");
const { dirname, join } = require("node:path");

const packageDir = dirname(require.resolve("better-sqlite3/package.json"));
const prebuild = dirname(require.resolve("prebuild-install/package.json", { paths: [packageDir] }));
const pkg = require(join(packageDir, "package.json"));
const rc = require(join(prebuild, "rc.js"))(pkg);
const util = require(join(prebuild, "util.js"));
const cached = util.cachedPrebuild(util.getDownloadUrl({ ...rc, pkg }));
const addon = join(packageDir, "build", "Release", "better_sqlite3.node");

if (existsSync(cached)) {
  console.log(`better-sqlite3 ${pkg.version}: the compiled addon is cached at ${cached}`);
} else if (!existsSync(addon)) {
  console.log(`better-sqlite3 ${pkg.version}: no compiled addon at ${addon}; nothing cached`);
} else {
  // Only an addon that loads is kept.
  execFileSync(process.execPath, ["-e", `new (require(${JSON.stringify(packageDir)}))(":memory:").close()`], { stdio: "inherit" });
  mkdirSync(dirname(cached), { recursive: true });
  const partial = `${cached}.${process.pid}.partial`;
  execFileSync("tar", ["-czf", partial, "-C", packageDir, "build/Release/better_sqlite3.node"]);
  renameSync(partial, cached);
  console.log(`better-sqlite3 ${pkg.version}: the compiled addon is cached at ${cached} for the next run`);
}
