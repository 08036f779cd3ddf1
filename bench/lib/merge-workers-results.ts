/**
 * Several `-workers.json` runs as one, for a report over more rounds than one run had time for:
 * on a shared machine whose load swings from minute to minute, more alternations say more.
 */
import type { WorkersResults } from "./workers-results.js";

/** The runs one after the other: rounds renumbered to follow on, the first run's machine and settings. */
export function mergeWorkersResults(runs: readonly WorkersResults[]): WorkersResults {
  const [first, ...rest] = runs;
  if (!first) throw new Error("no results to merge");
  let offset = 0;
  const merged: WorkersResults = { ...first, bare: [], bareCluster: [], runs: [] };
  for (const run of runs) {
    const label = runs.length === 1 ? "" : ` of run ${run.startedAt}`;
    merged.bare.push(...run.bare.map((bare) => ({ ...bare, at: `${bare.at}${label}` })));
    merged.bareCluster.push(...run.bareCluster.map((bare) => ({ ...bare, at: `${bare.at}${label}` })));
    merged.runs.push(...run.runs.map((host) => ({ ...host, round: host.round + offset })));
    offset += Math.max(0, ...run.runs.map((host) => host.round));
  }
  const last = rest.at(-1);
  return last?.finishedAt === undefined ? merged : { ...merged, finishedAt: last.finishedAt };
}
