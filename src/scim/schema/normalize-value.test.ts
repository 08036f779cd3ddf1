import { describe, expect, it } from "vitest";
import type { ValidationIssue } from "../../errors.js";
import { attribute } from "./attribute-definition.js";
import { normalizeAttributeValue, parseDateTime } from "./normalize-value.js";

const run = (definition: ReturnType<typeof attribute>, value: unknown, options = {}) => {
  const issues: ValidationIssue[] = [];
  const result = normalizeAttributeValue(definition, value, "x", issues, options);
  return { result, issues };
};

const name = attribute("name", {
  type: "complex",
  subAttributes: [attribute("givenName"), attribute("familyName")],
});
const emails = attribute("emails", {
  type: "complex",
  multiValued: true,
  subAttributes: [attribute("value"), attribute("type"), attribute("primary", { type: "boolean" })],
});
const manager = attribute("manager", {
  type: "complex",
  subAttributes: [attribute("value"), attribute("displayName", { mutability: "readOnly" })],
});

describe("normalizeAttributeValue", () => {
  it('coerces Entra\'s "True"/"False" strings for booleans, in any case', () => {
    const active = attribute("active", { type: "boolean" });
    expect(run(active, "True").result).toBe(true);
    expect(run(active, "FALSE").result).toBe(false);
    expect(run(active, false).result).toBe(false);
  });

  it("keeps every other type strict and reports the path", () => {
    expect(run(attribute("active", { type: "boolean" }), "yes").issues).toEqual([{ path: "x", message: 'expected a boolean, got "yes"' }]);
    expect(run(attribute("userName"), 42).issues[0]?.message).toBe("expected a string, got 42");
    expect(run(attribute("n", { type: "integer" }), 1.5).issues[0]?.message).toMatch(/integer/);
    expect(run(attribute("n", { type: "integer" }), 2 ** 60).issues[0]?.message).toMatch(/integer/);
    expect(run(attribute("n", { type: "decimal" }), "1.5").issues[0]?.message).toMatch(/number/);
    expect(run(name, "Barbara").issues[0]?.message).toBe('expected an object, got "Barbara"');
  });

  // Regression: `"\ud800"` is valid JSON, and PostgreSQL's jsonb answered it with an error (a 500).
  it("refuses a string holding an unpaired surrogate, and keeps surrogate pairs (RFC 7643 §2.3.1)", () => {
    for (const value of ["\ud800", "a\udc00b", "tail\ud83d", "\ude00head"]) {
      expect(run(attribute("userName"), value)).toEqual({
        result: undefined,
        issues: [{ path: "x", message: "holds an unpaired UTF-16 surrogate, which is not a Unicode character" }],
      });
    }
    expect(run(emails, [{ value: "a\ud800@example.com" }]).issues.map((issue) => issue.path)).toEqual(["x[0].value"]);
    expect(run(attribute("userName"), "smile \ud83d\ude00").result).toBe("smile \ud83d\ude00");
  });

  it("stores dateTimes in one canonical UTC form and rejects non-dates", () => {
    const when = attribute("when", { type: "dateTime" });
    expect(run(when, "2011-05-13T06:42:34+02:00").result).toBe("2011-05-13T04:42:34.000Z");
    expect(run(when, "2011-05-13").issues).toHaveLength(1);
    expect(run(when, "yesterday").issues).toHaveLength(1);
    expect(parseDateTime("2011-02-30T00:00:00Z")).toBeDefined();
    expect(parseDateTime("2011-05-13 04:42:34")).toBeUndefined();
    // A zone-less dateTime means the same instant on every host: UTC.
    expect(parseDateTime("2011-05-13T04:42:34")).toBe(Date.UTC(2011, 4, 13, 4, 42, 34));
  });

  it("maps sub-attribute names to their canonical case and drops unknown ones", () => {
    expect(run(name, { GIVENNAME: "Barbara", familyname: "Jensen", nickname: "Babs" }).result).toEqual({
      givenName: "Barbara",
      familyName: "Jensen",
    });
  });

  it("never lets a __proto__ key through", () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "givenName": "B"}') as unknown;
    const { result } = run(name, hostile);
    expect(result).toEqual({ givenName: "B" });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });

  it("reads a bare string as the value sub-attribute (Entra's manager)", () => {
    expect(run(manager, "26118915-6090-4610-87e4-49d8ca9f808d").result).toEqual({
      value: "26118915-6090-4610-87e4-49d8ca9f808d",
    });
  });

  it("drops readOnly attributes from client input unless told otherwise", () => {
    expect(run(manager, { value: "m1", displayName: "Boss" }).result).toEqual({ value: "m1" });
    expect(run(manager, { value: "m1", displayName: "Boss" }, { dropReadOnly: false }).result).toEqual({
      value: "m1",
      displayName: "Boss",
    });
    expect(run(attribute("id", { mutability: "readOnly" }), "abc").result).toBeUndefined();
  });

  it("treats null and empty arrays as unassigned (RFC 7643 §2.5)", () => {
    expect(run(attribute("nickName"), null).result).toBeUndefined();
    expect(run(emails, []).result).toBeUndefined();
    expect(run(emails, [null, { value: "a@example.com" }]).result).toEqual([{ value: "a@example.com" }]);
  });

  it("reads a lone value of a multi-valued attribute as an array of one, with element paths in issues", () => {
    expect(run(emails, { value: "a@example.com", type: "work" }).result).toEqual([{ value: "a@example.com", type: "work" }]);
    expect(run(emails, [{ value: "a@example.com" }, { value: 5 }]).issues).toEqual([
      { path: "x[1].value", message: "expected a string, got 5" },
    ]);
  });

  it("rejects more than one primary value (RFC 7643 §2.4)", () => {
    const { issues } = run(emails, [
      { value: "a@example.com", primary: true },
      { value: "b@example.com", primary: "True" },
    ]);
    expect(issues).toEqual([{ path: "x", message: "more than one value is marked primary" }]);
  });
});
