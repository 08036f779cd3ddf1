import { describe, expect, it } from "vitest";
import { ERROR_SCHEMA, ScimError, ScimType, badRequest, invalidValueError, isScimError } from "./errors.js";

describe("ScimError", () => {
  it("renders the RFC 7644 §3.12 body with status as a string", () => {
    const error = badRequest(ScimType.invalidFilter, "Invalid filter: unexpected end.");
    expect(error.toJSON()).toEqual({
      schemas: [ERROR_SCHEMA],
      status: "400",
      scimType: "invalidFilter",
      detail: "Invalid filter: unexpected end.",
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual(error.toJSON());
  });

  it("omits scimType when there is none", () => {
    const body = new ScimError(404, undefined, "User 42 not found").toJSON();
    expect(body).toEqual({ schemas: [ERROR_SCHEMA], status: "404", detail: "User 42 not found" });
    expect("scimType" in body).toBe(false);
  });

  it("folds validation issues into one invalidValue naming every path", () => {
    const error = invalidValueError([
      { path: "userName", message: "is required" },
      { path: "emails[1].value", message: "expected a string, got 5" },
    ]);
    expect(error.status).toBe(400);
    expect(error.scimType).toBe("invalidValue");
    expect(error.detail).toBe("userName: is required; emails[1].value: expected a string, got 5");
    expect(error.issues).toHaveLength(2);
  });

  it("is recognisable among thrown values", () => {
    expect(isScimError(badRequest(ScimType.noTarget, "x"))).toBe(true);
    expect(isScimError(new Error("x"))).toBe(false);
    expect(badRequest(ScimType.noTarget, "x")).toBeInstanceOf(Error);
  });
});
