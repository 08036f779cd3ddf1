/** The ready line, with and without the second organization the noisy-neighbour scenario needs. */
import { describe, expect, it } from "vitest";
import { parseReadyLine } from "./target-protocol.js";

describe("parseReadyLine", () => {
  it("keeps the neighbour organization when the target has one", () => {
    const line = JSON.stringify({
      ready: true,
      port: 4000,
      scimBase: "/scim/Organizations/bench/v2",
      token: "t",
      neighbour: { scimBase: "/scim/Organizations/neighbour/v2", token: "u" },
    });
    expect(parseReadyLine(line)).toEqual({
      ready: true,
      port: 4000,
      scimBase: "/scim/Organizations/bench/v2",
      token: "t",
      neighbour: { scimBase: "/scim/Organizations/neighbour/v2", token: "u" },
    });
  });

  it("leaves it out when the target has none, or a malformed one", () => {
    expect(parseReadyLine(JSON.stringify({ ready: true, port: 1 }))).toEqual({ ready: true, port: 1, scimBase: "", token: "" });
    expect(parseReadyLine(JSON.stringify({ ready: true, port: 1, neighbour: { scimBase: 3 } }))?.neighbour).toBeUndefined();
  });
});
