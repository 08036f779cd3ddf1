import { describe, expect, it } from "vitest";
import { ScimType } from "../../errors.js";
import type { ParsedFilter } from "./filter-ast.js";
import { defaultFilterLimits, parseFilter } from "./parse-filter.js";

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

function parsed(text: string): ParsedFilter {
  const result = parseFilter(text);
  if (!result.ok) throw new Error(`expected ${text} to parse: ${result.error.detail}`);
  return result.value;
}

function rejection(text: string, limits = {}): string {
  const result = parseFilter(text, limits);
  expect(result.ok).toBe(false);
  if (result.ok) return "";
  expect(result.error.status).toBe(400);
  expect(result.error.scimType).toBe(ScimType.invalidFilter);
  return result.error.detail;
}

const eq = (path: string, value: string | number | boolean | null): ParsedFilter => ({ kind: "compare", path, op: "eq", value });

describe("parseFilter: the RFC 7644 §3.4.2.2 examples", () => {
  it.each<[string, ParsedFilter]>([
    ['userName eq "bjensen"', eq("userName", "bjensen")],
    [`name.familyName co "O'Malley"`, { kind: "compare", path: "name.familyName", op: "co", value: "O'Malley" }],
    ['userName sw "J"', { kind: "compare", path: "userName", op: "sw", value: "J" }],
    [
      'urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"',
      { kind: "compare", path: "urn:ietf:params:scim:schemas:core:2.0:User:userName", op: "sw", value: "J" },
    ],
    ["title pr", { kind: "present", path: "title" }],
    [
      'meta.lastModified gt "2011-05-13T04:42:34Z"',
      { kind: "compare", path: "meta.lastModified", op: "gt", value: "2011-05-13T04:42:34Z" },
    ],
    [
      'meta.lastModified ge "2011-05-13T04:42:34Z"',
      { kind: "compare", path: "meta.lastModified", op: "ge", value: "2011-05-13T04:42:34Z" },
    ],
    [
      'meta.lastModified lt "2011-05-13T04:42:34Z"',
      { kind: "compare", path: "meta.lastModified", op: "lt", value: "2011-05-13T04:42:34Z" },
    ],
    [
      'meta.lastModified le "2011-05-13T04:42:34Z"',
      { kind: "compare", path: "meta.lastModified", op: "le", value: "2011-05-13T04:42:34Z" },
    ],
    ['title pr and userType eq "Employee"', { kind: "and", filters: [{ kind: "present", path: "title" }, eq("userType", "Employee")] }],
    ['title pr or userType eq "Intern"', { kind: "or", filters: [{ kind: "present", path: "title" }, eq("userType", "Intern")] }],
    [`schemas eq "${ENTERPRISE}"`, eq("schemas", ENTERPRISE)],
    [
      'userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")',
      {
        kind: "and",
        filters: [
          eq("userType", "Employee"),
          {
            kind: "or",
            filters: [
              { kind: "compare", path: "emails", op: "co", value: "example.com" },
              { kind: "compare", path: "emails.value", op: "co", value: "example.org" },
            ],
          },
        ],
      },
    ],
    [
      'userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")',
      {
        kind: "and",
        filters: [
          { kind: "compare", path: "userType", op: "ne", value: "Employee" },
          {
            kind: "not",
            filter: {
              kind: "or",
              filters: [
                { kind: "compare", path: "emails", op: "co", value: "example.com" },
                { kind: "compare", path: "emails.value", op: "co", value: "example.org" },
              ],
            },
          },
        ],
      },
    ],
    [
      'userType eq "Employee" and (emails.type eq "work")',
      { kind: "and", filters: [eq("userType", "Employee"), eq("emails.type", "work")] },
    ],
    [
      'userType eq "Employee" and emails[type eq "work" and value co "@example.com"]',
      {
        kind: "and",
        filters: [
          eq("userType", "Employee"),
          {
            kind: "valuePath",
            path: "emails",
            filter: { kind: "and", filters: [eq("type", "work"), { kind: "compare", path: "value", op: "co", value: "@example.com" }] },
          },
        ],
      },
    ],
    [
      'emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]',
      {
        kind: "or",
        filters: [
          {
            kind: "valuePath",
            path: "emails",
            filter: { kind: "and", filters: [eq("type", "work"), { kind: "compare", path: "value", op: "co", value: "@example.com" }] },
          },
          {
            kind: "valuePath",
            path: "ims",
            filter: { kind: "and", filters: [eq("type", "xmpp"), { kind: "compare", path: "value", op: "co", value: "@foo.com" }] },
          },
        ],
      },
    ],
  ])("parses %s", (text, expected) => {
    expect(parsed(text)).toEqual(expected);
  });
});

describe("parseFilter: grammar", () => {
  it("binds and tighter than or (RFC 7644 §3.4.2.2 Table 5)", () => {
    expect(parsed("a pr or b pr and c pr")).toEqual({
      kind: "or",
      filters: [
        { kind: "present", path: "a" },
        {
          kind: "and",
          filters: [
            { kind: "present", path: "b" },
            { kind: "present", path: "c" },
          ],
        },
      ],
    });
    expect(parsed("a pr and b pr or c pr")).toEqual({
      kind: "or",
      filters: [
        {
          kind: "and",
          filters: [
            { kind: "present", path: "a" },
            { kind: "present", path: "b" },
          ],
        },
        { kind: "present", path: "c" },
      ],
    });
  });

  it("lets parentheses override precedence", () => {
    expect(parsed("(a pr or b pr) and c pr")).toEqual({
      kind: "and",
      filters: [
        {
          kind: "or",
          filters: [
            { kind: "present", path: "a" },
            { kind: "present", path: "b" },
          ],
        },
        { kind: "present", path: "c" },
      ],
    });
  });

  it("keeps long chains flat", () => {
    expect(parsed("a pr and b pr and c pr and d pr")).toEqual({
      kind: "and",
      filters: ["a", "b", "c", "d"].map((path) => ({ kind: "present", path })),
    });
  });

  it("reads operators, logical words and literals case-insensitively", () => {
    expect(parsed('userName EQ "x"')).toEqual(eq("userName", "x"));
    expect(parsed("title PR")).toEqual({ kind: "present", path: "title" });
    expect(parsed('a Eq 1 AND b pr OR Not (c Sw "q")')).toEqual({
      kind: "or",
      filters: [
        { kind: "and", filters: [eq("a", 1), { kind: "present", path: "b" }] },
        { kind: "not", filter: { kind: "compare", path: "c", op: "sw", value: "q" } },
      ],
    });
    expect(parsed("active eq TRUE")).toEqual(eq("active", true));
    expect(parsed("active eq False")).toEqual(eq("active", false));
    expect(parsed("manager eq NULL")).toEqual(eq("manager", null));
  });

  it("keeps paths exactly as written, for the resolver to match case-insensitively", () => {
    expect(parsed('USERNAME eq "x"')).toEqual(eq("USERNAME", "x"));
  });

  it("decodes JSON string escapes (RFC 8259 §7)", () => {
    expect(parsed('userName eq "\\u00e9"')).toEqual(eq("userName", "é"));
    expect(parsed('userName eq "a\\\\"')).toEqual(eq("userName", "a\\"));
    expect(parsed('userName eq "\\""')).toEqual(eq("userName", '"'));
    expect(parsed('userName eq "a\\/b\\tc\\n"')).toEqual(eq("userName", "a/b\tc\n"));
    expect(parsed('userName eq "a and b or (c)"')).toEqual(eq("userName", "a and b or (c)"));
    expect(parsed('userName eq ""')).toEqual(eq("userName", ""));
  });

  it.each<[string, number]>([
    ["0", 0],
    ["42", 42],
    ["-7", -7],
    ["3.25", 3.25],
    ["-0.5", -0.5],
    ["1e3", 1000],
    ["2.5E-2", 0.025],
    ["-1e+2", -100],
  ])("reads the number %s", (literal, value) => {
    expect(parsed(`level eq ${literal}`)).toEqual(eq("level", value));
  });

  it("reads true, false and null", () => {
    expect(parsed("active eq true")).toEqual(eq("active", true));
    expect(parsed("active ne false")).toEqual({ kind: "compare", path: "active", op: "ne", value: false });
    expect(parsed("title eq null")).toEqual(eq("title", null));
  });

  it("accepts URN-prefixed paths, with sub-attributes", () => {
    expect(parsed(`${ENTERPRISE}:manager.value eq "26118915"`)).toEqual(eq(`${ENTERPRISE}:manager.value`, "26118915"));
    expect(parsed(`${ENTERPRISE}:department pr`)).toEqual({ kind: "present", path: `${ENTERPRISE}:department` });
  });

  it("accepts $ref as an attribute name", () => {
    expect(parsed('members[$ref eq "https://example.com/v2/Users/1"]')).toEqual({
      kind: "valuePath",
      path: "members",
      filter: eq("$ref", "https://example.com/v2/Users/1"),
    });
  });

  it("tolerates extra whitespace", () => {
    expect(parsed('  (  userName   eq\t"x" )  ')).toEqual(eq("userName", "x"));
  });

  it('turns emails[type eq "work"].value ew "x" into one value filter on the same element', () => {
    expect(parsed('emails[type eq "work"].value ew "x"')).toEqual({
      kind: "valuePath",
      path: "emails",
      filter: { kind: "and", filters: [eq("type", "work"), { kind: "compare", path: "value", op: "ew", value: "x" }] },
    });
    expect(parsed('emails[type eq "work"].value pr')).toEqual({
      kind: "valuePath",
      path: "emails",
      filter: { kind: "and", filters: [eq("type", "work"), { kind: "present", path: "value" }] },
    });
  });

  it('keeps emails[type eq "work"] and emails.value ew "x" as two independent conditions', () => {
    expect(parsed('emails[type eq "work"] and emails.value ew "x"')).toEqual({
      kind: "and",
      filters: [
        { kind: "valuePath", path: "emails", filter: eq("type", "work") },
        { kind: "compare", path: "emails.value", op: "ew", value: "x" },
      ],
    });
  });

  it("accepts not inside brackets", () => {
    expect(parsed('emails[not (type eq "work")]')).toEqual({
      kind: "valuePath",
      path: "emails",
      filter: { kind: "not", filter: eq("type", "work") },
    });
  });

  it("accepts or and parentheses inside brackets", () => {
    expect(parsed('emails[(type eq "work" or type eq "home") and primary eq true]')).toEqual({
      kind: "valuePath",
      path: "emails",
      filter: {
        kind: "and",
        filters: [{ kind: "or", filters: [eq("type", "work"), eq("type", "home")] }, eq("primary", true)],
      },
    });
  });

  it("accepts nesting up to maxDepth", () => {
    const depth = defaultFilterLimits.maxDepth;
    expect(parseFilter(`${"(".repeat(depth)}a pr${")".repeat(depth)}`).ok).toBe(true);
    expect(parseFilter(`${"(".repeat(3)}a pr${")".repeat(3)}`, { maxDepth: 3 }).ok).toBe(true);
  });
});

describe("parseFilter: errors are 400 invalidFilter with a helpful detail", () => {
  it.each<[string, string, RegExp]>([
    ["empty", "", /empty/],
    ["blank", "   ", /empty/],
    ["unclosed parenthesis", '(userName eq "x"', /expected "\)"/],
    ["extra closing parenthesis", 'userName eq "x")', /unexpected "\)"/],
    ["unclosed bracket", 'emails[type eq "work"', /expected "\]" to close "emails\["/],
    ["stray closing bracket", 'userName eq "x"]', /unexpected "\]"/],
    ["empty brackets", "emails[]", /expected an attribute/],
    ["empty parentheses", "()", /expected an attribute/],
    ["unknown operator", 'userName like "x"', /"like" is not a filter operator/],
    ["missing operator", "userName", /expected an operator after "userName"/],
    ["missing value", "userName eq", /expected a value after "userName eq"/],
    ["missing value before and", "userName eq and title pr", /must be a quoted string, a number, true, false or null/],
    ["unquoted string value", "userName eq bjensen", /must be a quoted string/],
    ["unterminated string", 'userName eq "bjensen', /unterminated or malformed string/],
    ["invalid escape", 'userName eq "a\\x"', /malformed string/],
    ["raw control character", 'userName eq "a\u0001"', /malformed string/],
    ["malformed number", "level eq 01", /malformed number/],
    ["number glued to a word", "level eq 1abc", /malformed number/],
    ["trailing garbage", 'userName eq "x" garbage', /unexpected "garbage"/],
    ["two values", 'userName eq "x" "y"', /unexpected the string "y"/],
    ["dangling and", 'userName eq "x" and', /expected an attribute, "not" or "\("/],
    ["dangling or", "title pr or", /expected an attribute/],
    // A leading "and" reads as an attribute named "and"; the next word then fails as an operator.
    ["leading and", "and title pr", /expected an attribute, found the keyword "and"/],
    ["not without parentheses", 'not userName eq "x"', /"not" must be followed by a parenthesized filter/],
    ["not at the end", "not", /"not" must be followed by a parenthesized filter, found the end/],
    ["unexpected character", 'userName eq "x" & title pr', /unexpected character "&"/],
    ["nested value filter", 'emails[type[value eq "x"] eq "y"]', /cannot contain another one/],
    ["value path followed by a logical expression", 'emails[type eq "work"].(value pr)', /expected an attribute/],
    ["value path followed by a nested value path", 'emails[type eq "work"].value[x pr]', /cannot contain another one/],
  ])("rejects %s", (_, text, detail) => {
    expect(rejection(text)).toMatch(detail);
  });

  it("names the position of the problem", () => {
    expect(rejection('userName eq "x" title pr')).toMatch(/position 17/);
  });

  it("rejects a filter longer than maxLength before parsing it", () => {
    const text = `userName eq "${"x".repeat(defaultFilterLimits.maxLength)}"`;
    expect(rejection(text)).toMatch(/characters long; the limit is 10000/);
    expect(rejection('userName eq "abc"', { maxLength: 10 })).toMatch(/17 characters long; the limit is 10/);
  });

  it("rejects nesting deeper than maxDepth", () => {
    expect(rejection(`${"(".repeat(4)}a pr${")".repeat(4)}`, { maxDepth: 3 })).toMatch(/nested deeper than 3 levels/);
    expect(rejection("not (not (not (not (a pr))))", { maxDepth: 3 })).toMatch(/nested deeper than 3 levels/);
  });

  it("returns invalidFilter for 10,000 open parentheses instead of overflowing the stack", () => {
    expect(rejection("(".repeat(10_000))).toMatch(/nested deeper than 32 levels/);
    expect(rejection(`${"(".repeat(10_000)}a pr${")".repeat(10_000)}`, { maxLength: 100_000 })).toMatch(/nested deeper/);
    expect(rejection("not (".repeat(2_000))).toMatch(/nested deeper/);
  });

  it("prefixes every detail so that it reads on its own", () => {
    expect(rejection("userName eq")).toMatch(/^Invalid filter: /);
  });
});
