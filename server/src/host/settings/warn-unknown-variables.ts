import { hostVariables } from "./host-variables.js";
import type { SettingReader } from "./setting-reader.js";

/** Variables of the test suite and tools, not the host's: no typo warning for them. */
const notTheHosts = /^SCIMKIT_(TEST_|REQUIRE_|HTTP_|EXPRESS_|BENCH_|SOAK_)/;

/** Warns of every `SCIMKIT_*` variable the host does not read, with the one it most likely meant. */
export function warnUnknownVariables(reader: SettingReader): void {
  for (const name of Object.keys(reader.env)) {
    if (!name.startsWith("SCIMKIT_") || notTheHosts.test(name) || (hostVariables as readonly string[]).includes(name)) continue;
    const closest = closestVariable(name);
    reader.warnings.push(`${name} is not a setting of the host and is ignored${closest === undefined ? "" : `; did you mean ${closest}?`}`);
  }
}

/** The known variable nearest to `name` by edit distance, if near enough to be a typo of it. */
function closestVariable(name: string): string | undefined {
  let best: { readonly name: string; readonly distance: number } | undefined;
  for (const known of hostVariables) {
    const distance = editDistance(name, known);
    if (best === undefined || distance < best.distance) best = { name: known, distance };
  }
  return best !== undefined && best.distance <= Math.max(3, Math.floor(name.length / 4)) ? best.name : undefined;
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
