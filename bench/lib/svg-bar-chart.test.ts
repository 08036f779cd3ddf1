/** The bar chart shows a missing value as missing. */
import { describe, expect, it } from "vitest";
import { barChart } from "./svg-bar-chart.js";

describe("barChart", () => {
  it("draws n/a for a missing value rather than an empty bar, and never writes NaN", () => {
    const svg = barChart({
      title: "t",
      yLabel: "ms",
      series: [
        { name: "alone", color: "#000" },
        { name: "under A", color: "#f00" },
      ],
      groups: [{ name: "memory", values: [5, undefined] }],
      scale: "log",
    });
    expect(svg).toContain("n/a");
    expect(svg).not.toContain("NaN");
  });
});
