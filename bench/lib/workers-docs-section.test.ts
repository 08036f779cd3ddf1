import { describe, expect, it } from "vitest";
import {
  WORKERS_SECTION_END,
  WORKERS_SECTION_START,
  extractWorkersSection,
  keepWorkersSection,
  spliceWorkersSection,
} from "./workers-docs-section.js";

const block = (text: string): string => `${WORKERS_SECTION_START}\n## Workers: 1 → N on PostgreSQL\n\n${text}\n${WORKERS_SECTION_END}`;

describe("the workers section of docs/benchmarks.md", () => {
  it("goes before ## Machine when the page has none, and replaces itself on the next run", () => {
    const page = "# Benchmarks\n\n## Charts\n\nx\n\n## Machine\n\n- cpu\n";
    const first = spliceWorkersSection(page, block("first $& run"));
    expect(first).toBe(`# Benchmarks\n\n## Charts\n\nx\n\n${block("first $& run")}\n\n## Machine\n\n- cpu\n`);
    const second = spliceWorkersSection(first, block("second"));
    expect(second).toBe(`# Benchmarks\n\n## Charts\n\nx\n\n${block("second")}\n\n## Machine\n\n- cpu\n`);
    expect(extractWorkersSection(second)).toBe(block("second"));
  });

  it("goes at the end of a page without ## Machine", () => {
    expect(spliceWorkersSection("# B\n\ntext\n", block("a"))).toBe(`# B\n\ntext\n\n${block("a")}\n`);
  });

  it("survives a regeneration of the rest of the page, and a page without one stays as generated", () => {
    const previous = spliceWorkersSection("# old\n\n## Machine\n", block("kept"));
    expect(keepWorkersSection(previous, "# new\n\n## Machine\n")).toBe(`# new\n\n${block("kept")}\n\n## Machine\n`);
    expect(keepWorkersSection("# old\n", "# new\n")).toBe("# new\n");
    expect(extractWorkersSection("no markers")).toBeUndefined();
  });
});
