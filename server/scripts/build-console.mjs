// The operator console (console/ → dist/console/), with Vite: `npm run build` runs it after tsc,
// `npm start` (prestart) when dist/console is missing. `--if-missing` skips an existing build.
//
// After building it checks what the host's CSP forbids (src/host/console-routes.ts): an inline
// <script> or style attribute in the HTML would be blocked in the browser, so it fails the build.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "console");

if (process.argv.includes("--if-missing") && existsSync(join(out, "index.html"))) process.exit(0);

const { build } = await import("vite");
await build({ configFile: join(root, "console", "vite.config.mjs") });

const html = readFileSync(join(out, "index.html"), "utf8");
const inlineScript = /<script(?![^>]*\bsrc=)[^>]*>/i.exec(html);
const inlineStyle = /<style\b|\sstyle=/i.exec(html);
if (inlineScript || inlineStyle) {
  console.error(`dist/console/index.html has ${inlineScript ? "an inline <script>" : "inline style"}, which the console's CSP blocks.`);
  process.exit(1);
}
// On stderr: `npm pack --json` runs this through prepack, and its stdout must stay JSON.
console.error("Operator console built into dist/console/ (served at /console).");
