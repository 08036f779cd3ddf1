/**
 * Which scimkit code a target ran: the commit and whether `src/` or `examples/` had uncommitted
 * changes. Each target process loads the code when it starts, so the runner records this per run.
 */
import { execFileSync } from "node:child_process";

export interface SourceVersion {
  readonly commit: string;
  /** Uncommitted changes under src/ or examples/ when the target started. */
  readonly dirty: boolean;
}

/** The version in `repoRoot` now, or undefined outside a git checkout. */
export function sourceVersion(repoRoot: string): SourceVersion | undefined {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short=10", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
    const status = execFileSync("git", ["status", "--porcelain", "--", "src", "examples"], { cwd: repoRoot, encoding: "utf8" }).trim();
    return { commit, dirty: status !== "" };
  } catch {
    return undefined;
  }
}

/** `abc1234567` or `abc1234567+dirty`. */
export function formatVersion(version: SourceVersion | undefined): string {
  return version ? `${version.commit}${version.dirty ? "+uncommitted changes" : ""}` : "unknown";
}
