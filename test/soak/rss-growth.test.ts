import { describe, expect, it } from "vitest";
import { rssGrowth, type RssSample } from "../../soak/rss-growth.js";

/** 60 samples, one every 10 s, of `rss(minute)`. */
const run = (rss: (minute: number) => number): RssSample[] =>
  Array.from({ length: 60 }, (_, index) => ({ atSeconds: index * 10, rssMiB: rss(index / 6) }));

describe("the soak run's RSS verdict", () => {
  it("passes a warm-up that levels off, with noise", () => {
    const verdict = rssGrowth(run((minute) => 80 + 40 * (1 - Math.exp(-minute)) + ((minute * 37) % 3)));
    expect(verdict.bounded).toBe(true);
    expect(verdict.growthPercent).toBeLessThan(10);
  });

  it("fails a steady leak of 2 MiB a minute on 100 MiB over 10 minutes", () => {
    const verdict = rssGrowth(run((minute) => 100 + 2 * minute));
    expect(verdict.bounded).toBe(false);
    expect(verdict.slopeMiBPerMinute).toBeCloseTo(2, 5);
  });

  it("compares the medians of the middle and last thirds, so one spike does not fail a run", () => {
    const verdict = rssGrowth(run((minute) => (minute > 9.5 ? 400 : 120)));
    expect(verdict.middleThirdMedianMiB).toBe(120);
    expect(verdict.lastThirdMedianMiB).toBe(120);
    expect(verdict.bounded).toBe(true);
  });

  it("cannot judge fewer than three samples, and says bounded", () => {
    expect(
      rssGrowth([
        { atSeconds: 0, rssMiB: 100 },
        { atSeconds: 10, rssMiB: 300 },
      ]).bounded,
    ).toBe(true);
  });
});
