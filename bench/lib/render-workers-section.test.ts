import { describe, expect, it } from "vitest";
import { renderWorkersSection } from "./render-workers-section.js";
import { extractWorkersSection } from "./workers-docs-section.js";
import { workersResults } from "./workers-results.fixture.js";

describe("the workers section", () => {
  it("renders the table, the failed run and the results file inside the section's markers", () => {
    const section = renderWorkersSection(
      workersResults,
      ["bench/results/x-workers.json", "bench/results/y-workers.json"],
      "Readings here.",
    );
    expect(extractWorkersSection(section)).toBe(section);
    expect(section).toContain("## Workers: 1 → N on PostgreSQL");
    expect(section).toContain("| 1 | 1,100 (1,000 / 1,200) | 11.0% · 1.00× | 19.0 / 50.0 | 400 (400) | 4.0% · 1.00× |");
    expect(section).toContain("| 2 (= cores) | 1,500 (1,500) | 15.0% · 1.36× |");
    expect(section).toContain("15,000 (1.50×) |");
    expect(section).toContain("| 30 / 20 / 10 / 35 · 1,000 |");
    expect(section).toContain("**Failed runs:** N=2 round 2: the host exited 1 after SIGTERM.");
    expect(section).toContain("**2 cores available**");
    expect(section).toContain("2 rounds alternating over N");
    expect(section).toContain("Readings here.");
    expect(section).toContain("Raw results: `bench/results/x-workers.json` + `bench/results/y-workers.json`;");
    expect(section).toContain("--report-only=bench/results/x-workers.json,bench/results/y-workers.json`");
  });
});
