import { describe, expect, it } from "vitest";
import { defaultWorkerCounts, readWorkersConfig } from "./workers-config.js";

describe("the workers bench's settings", () => {
  it("measures 1 to the cores and one more by default, alternating over 2 rounds", () => {
    expect(defaultWorkerCounts(2)).toEqual([1, 2, 3]);
    expect(defaultWorkerCounts(1)).toEqual([1, 2]);
    const config = readWorkersConfig([], { SCIMKIT_BENCH_POSTGRES_URL: "postgres://pg/test" }, 4);
    expect(config).toMatchObject({ workers: [1, 2, 3, 4, 5], rounds: 2, users: 2000, duration: 10, warmup: 3, bareCluster: true });
    expect(config.postgresUrl).toBe("postgres://pg/test");
  });

  it("takes flags over BENCH_ variables, in both spellings", () => {
    const config = readWorkersConfig(
      ["--workers=1,4", "--rounds", "3", "--no-docs", "--bare-cluster=false"],
      { BENCH_ROUNDS: "5", BENCH_USERS: "300" },
      2,
    );
    expect(config).toMatchObject({ workers: [1, 4], rounds: 3, users: 300, noDocs: true, bareCluster: false });
    expect(readWorkersConfig(["--quick"], {}, 2)).toMatchObject({ rounds: 1, users: 200, duration: 2 });
  });

  it("refuses a bad value or an unknown flag, saying what it takes", () => {
    expect(() => readWorkersConfig(["--workers=1,two"], {}, 2)).toThrow('--workers="two": expected a whole number of at least 1');
    expect(() => readWorkersConfig(["--duration=0"], {}, 2)).toThrow('--duration="0": expected a positive number');
    expect(() => readWorkersConfig(["--worker=2"], {}, 2)).toThrow(/unknown flag --worker; known: --workers/);
    expect(() => readWorkersConfig(["workers"], {}, 2)).toThrow(/flags are --name=value/);
  });
});
