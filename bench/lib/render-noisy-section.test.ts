/** The noisy-neighbour section of docs/benchmarks.md. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BenchResults } from "./bench-results.js";
import type { NoisyRun } from "./noisy-neighbour-results.js";
import { renderNoisySection } from "./render-noisy-section.js";
import { run, stats, window } from "./noisy-run.fixture.js";

describe("renderNoisySection", () => {
  it("renders B's table, A's table and the refused seeding, and writes both charts", () => {
    const dir = mkdtempSync(join(tmpdir(), "noisy-section-"));
    const measured = run([window("alone", stats(4_000, 10, 60)), window("patch", stats(1_000, 50, 900), 1_500)]);
    const withFixture: NoisyRun = {
      ...measured,
      fixture: {
        manyEmailsWanted: 10_000,
        manyEmailsBuilt: 1_000,
        manyEmailsAttempts: [
          { size: 10_000, status: 400, ms: 3, detail: "at most 1000 values" },
          { size: 1_000, status: 201, ms: 40 },
        ],
        addPool: 100,
      },
    };
    const results = { noisy: [withFixture] } as unknown as BenchResults;
    const markdown = renderNoisySection(results, dir);
    expect(markdown).toContain("## Noisy neighbour (issue 12)");
    expect(markdown).toContain("| B alone | 4,000 |");
    expect(markdown).toContain("the largest the server accepted holds 1,000");
    expect(markdown).toContain("**1,500**");
    expect(readFileSync(join(dir, "noisy-neighbour-p99.svg"), "utf8")).toContain("<svg");
    expect(readFileSync(join(dir, "noisy-neighbour-throughput.svg"), "utf8")).toContain("<svg");
  });
});
