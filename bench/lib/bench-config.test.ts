/** The command line: both flag forms, and the noisy-neighbour settings. */
import { describe, expect, it } from "vitest";
import { flags, readConfig } from "./bench-config.js";

describe("flags", () => {
  it("reads --name value as well as --name=value and bare --name", () => {
    const map = flags(["--only", "noisy", "--stores=memory,sqlite", "--quick", "--users", "50000"]);
    expect(Object.fromEntries(map)).toEqual({ only: "noisy", stores: "memory,sqlite", quick: "true", users: "50000" });
  });

  it("--only=noisy with A's users; unknown parts and loads are refused", () => {
    const config = readConfig(["--only", "noisy", "--stores", "memory", "--users", "50k"], {});
    expect(config).toMatchObject({ only: ["noisy"], targets: ["memory"], noisyUsers: 50_000, noisyConnections: 10, noisyDuration: 10 });
    expect(() => readConfig(["--only=everything"], {})).toThrow(/--only/);
    expect(() => readConfig(["--noisy-loads=lists,delete"], {})).toThrow(/--noisy-loads/);
  });

  it("--request-log takes a list of off, memory and sql, default off", () => {
    expect(readConfig([], {}).requestLogs).toEqual(["off"]);
    expect(readConfig(["--request-log=off,memory"], {}).requestLogs).toEqual(["off", "memory"]);
    expect(() => readConfig(["--request-log=file"], {})).toThrow(/--request-log/);
  });
});
