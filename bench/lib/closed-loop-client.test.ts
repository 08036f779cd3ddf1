/** The per-shape summary of organization A's requests. */
import { describe, expect, it } from "vitest";
import { summarizeShapes } from "./closed-loop-client.js";

describe("summarizeShapes", () => {
  it("groups by shape in first-sent order, with the first refusal and Bulk operation statuses", () => {
    const shapes = summarizeShapes([
      { shape: "b", ms: 10, status: "200", bodyBytes: 5, operationStatuses: { 201: 2 } },
      { shape: "a", ms: 4, status: "413", bodyBytes: 9, answer: { status: 413, detail: "too big" } },
      { shape: "b", ms: 30, status: "200", bodyBytes: 5, operationStatuses: { 201: 1, 409: 1 } },
    ]);
    expect(shapes.map((shape) => shape.shape)).toEqual(["b", "a"]);
    expect(shapes[0]).toMatchObject({ count: 2, maxMs: 30, statusCodes: { 200: 2 }, operationStatuses: { 201: 3, 409: 1 } });
    expect(shapes[1]).toMatchObject({ refusal: { status: 413, detail: "too big" }, bodyBytes: 9 });
  });
});
