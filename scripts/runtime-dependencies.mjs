// The container's build stage (Dockerfile, scripts/container-smoke.sh), before `npm prune --omit=dev`:
// moves the packages the host needs at run time but the library only names as optional peers —
// Express, both database drivers so `DATABASE_URL` may name SQLite or PostgreSQL, and ajv with
// ajv-formats, which the analytics interface the host mounts validates with — from
// devDependencies into dependencies, at the lockfile's exact versions, so the prune keeps them.
// `npm install --omit=dev express …` cannot do it: npm still sees a devDependency and omits it.
// It edits the package.json of the build stage's copy only; the image's is the edited one.
import { readFileSync, writeFileSync } from "node:fs";

const HOST_RUNTIME = ["express", "better-sqlite3", "pg", "ajv", "ajv-formats"];

const manifest = JSON.parse(readFileSync("package.json", "utf8"));
for (const name of HOST_RUNTIME) {
  const version = manifest.devDependencies?.[name];
  if (version === undefined) throw new Error(`package.json devDependencies has no ${name}; the host needs it at run time`);
  manifest.dependencies = { ...manifest.dependencies, [name]: version };
  delete manifest.devDependencies[name];
}
writeFileSync("package.json", `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`runtime dependencies for the host: ${HOST_RUNTIME.map((name) => `${name}@${manifest.dependencies[name]}`).join(", ")}`);
