import { describe, expect, it } from "vitest";
import { mergeWorkersResults } from "./merge-workers-results.js";
import { workersResults } from "./workers-results.fixture.js";

describe("merging workers runs", () => {
  it("puts the second run's rounds after the first's and labels each bare measurement with its run", () => {
    const second = { ...workersResults, startedAt: "2026-11-24T15:00:00.000Z", finishedAt: "2026-11-24T15:10:00.000Z" };
    const merged = mergeWorkersResults([workersResults, second]);
    expect(merged.runs.map((run) => `${run.workers}@${run.round}`)).toEqual(["1@1", "2@1", "1@2", "2@2", "1@3", "2@3", "1@4", "2@4"]);
    expect(merged.bare.map((bare) => bare.at)).toEqual([
      "start of run 2026-11-24T14:00:00.000Z",
      "after round 1 of run 2026-11-24T14:00:00.000Z",
      "start of run 2026-11-24T15:00:00.000Z",
      "after round 1 of run 2026-11-24T15:00:00.000Z",
    ]);
    expect(merged.bareCluster).toHaveLength(2);
    expect(merged.startedAt).toBe(workersResults.startedAt);
    expect(merged.finishedAt).toBe("2026-11-24T15:10:00.000Z");
  });

  it("leaves a single run as it was, and refuses none", () => {
    expect(mergeWorkersResults([workersResults])).toEqual(workersResults);
    expect(() => mergeWorkersResults([])).toThrow(/no results/);
  });
});
