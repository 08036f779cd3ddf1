/**
 * Where a test finds the JavaScript twin of a repository file, to start it as a process with a
 * bare `node` (compiled-sources.global-setup.ts made the twins).
 */
import { join } from "node:path";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The mirror compiled-sources.global-setup.ts made: the repository's layout, `.ts` files as `.js`. */
    compiledSources: string;
  }
}

/**
 * The transformed twin of `path` (repository-relative, `.ts`): `compiledSource("server/src/host/cli.ts")`.
 * Its imports resolve inside the mirror, `scimkit` and `@scimkit/server` included.
 */
export function compiledSource(path: string): string {
  const mirror = inject("compiledSources");
  if (mirror === undefined) throw new Error("no compiled sources: add test/compiled-sources.global-setup.ts to this project's globalSetup");
  return join(mirror, path.replace(/\.ts$/, ".js"));
}
