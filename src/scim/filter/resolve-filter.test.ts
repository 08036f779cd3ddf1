import { describe, expect, it } from "vitest";
import { ScimType } from "../../errors.js";
import { ENTERPRISE_URN, USER_URN } from "../sample-resources.fixture.js";
import { formatPath, type ResolvedPath } from "../schema/resolved-path.js";
import { createSchemaRegistry } from "../schema/schema-registry.js";
import type { CompareFilter, Filter, ParsedFilter } from "./filter-ast.js";
import { TEST_URN, testUsers } from "./filter-schema.fixture.js";
import { compileFilter, resolveFilter } from "./resolve-filter.js";

const users = createSchemaRegistry().resourceType("User")!;
const groups = createSchemaRegistry().resourceType("Group")!;

function compiled(text: string, schema = testUsers): Filter {
  const result = compileFilter(schema, text);
  if (!result.ok) throw new Error(`expected ${text} to compile: ${result.error.detail}`);
  return result.value;
}

function compare(text: string): CompareFilter<ResolvedPath> {
  const filter = compiled(text);
  if (filter.kind !== "compare") throw new Error(`expected a comparison, got ${filter.kind}`);
  return filter;
}

function rejection(text: string, schema = testUsers): string {
  const result = compileFilter(schema, text);
  expect(result.ok).toBe(false);
  if (result.ok) return "";
  expect(result.error.status).toBe(400);
  expect(result.error.scimType).toBe(ScimType.invalidFilter);
  return result.error.detail;
}

/** A resolved filter with every path written as canonical text, for readable expectations. */
function shape(filter: Filter): unknown {
  switch (filter.kind) {
    case "compare":
      return { [filter.op]: [formatPath(filter.path), filter.value] };
    case "present":
      return { pr: formatPath(filter.path) };
    case "and":
    case "or":
      return { [filter.kind]: filter.filters.map(shape) };
    case "not":
      return { not: shape(filter.filter) };
    case "valuePath":
      return { [`${formatPath(filter.path)}[]`]: shape(filter.filter) };
  }
}

describe("resolveFilter: binding paths", () => {
  it("binds a core attribute to its definition, case-insensitively", () => {
    const filter = compare('USERNAME Eq "bjensen"');
    expect(filter.path.schema).toBe(USER_URN);
    expect(filter.path.extension).toBe(false);
    expect(filter.path.attribute.name).toBe("userName");
    expect(filter.path.attribute.caseExact).toBe(false);
    expect(filter.path.subAttribute).toBeUndefined();
    expect(filter.op).toBe("eq");
    expect(filter.value).toBe("bjensen");
  });

  it("binds sub-attributes, common attributes and URN-qualified core paths", () => {
    expect(shape(compiled('name.FAMILYNAME co "O\'Malley"'))).toEqual({ co: ["name.familyName", "O'Malley"] });
    expect(shape(compiled(`${USER_URN}:userName sw "J"`))).toEqual({ sw: ["userName", "J"] });
    expect(shape(compiled('id eq "1"'))).toEqual({ eq: ["id", "1"] });
    expect(shape(compiled(`schemas eq "${ENTERPRISE_URN}"`))).toEqual({ eq: ["schemas", ENTERPRISE_URN] });
    expect(compare('meta.lastModified gt "2011-05-13T04:42:34Z"').path.subAttribute?.type).toBe("dateTime");
  });

  it("binds enterprise extension paths with and without the URN, and the spec's employeeNumber alias", () => {
    const qualified = compare(`${ENTERPRISE_URN}:department eq "Sales"`);
    expect(qualified.path.schema).toBe(ENTERPRISE_URN);
    expect(qualified.path.extension).toBe(true);
    expect(shape(qualified)).toEqual({ eq: [`${ENTERPRISE_URN}:department`, "Sales"] });
    expect(shape(compiled('department eq "Sales"'))).toEqual({ eq: [`${ENTERPRISE_URN}:department`, "Sales"] });
    expect(shape(compiled('urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber eq "42"'))).toEqual({
      eq: [`${ENTERPRISE_URN}:employeeNumber`, "42"],
    });
    expect(shape(compiled(`${ENTERPRISE_URN}:manager.value eq "26118915"`))).toEqual({
      eq: [`${ENTERPRISE_URN}:manager.value`, "26118915"],
    });
  });

  it("binds the attributes of a registered custom extension", () => {
    expect(shape(compiled(`${TEST_URN}:level gt 3`))).toEqual({ gt: [`${TEST_URN}:level`, 3] });
    expect(shape(compiled("score le 2.5"))).toEqual({ le: [`${TEST_URN}:score`, 2.5] });
  });

  it("keeps the tree's structure", () => {
    expect(shape(compiled('title pr or userType eq "Intern" and not (active eq false)'))).toEqual({
      or: [{ pr: "title" }, { and: [{ eq: ["userType", "Intern"] }, { not: { eq: ["active", false] } }] }],
    });
  });

  it.each<[string, RegExp]>([
    ['nope eq "x"', /unknown attribute "nope"/],
    ["nope pr", /unknown attribute "nope"/],
    ['name.nope eq "x"', /unknown attribute "name\.nope".*"nope" is not a sub-attribute of "name"/],
    ['userName.value eq "x"', /unknown attribute "userName\.value"/],
    ['urn:example:unknown:2.0:User:userName eq "x"', /unknown attribute "urn:example:unknown:2\.0:User:userName"/],
    [`${ENTERPRISE_URN}:nope eq "x"`, /unknown attribute ".*:nope"/],
    ['emails[nope eq "x"]', /unknown attribute "emails\.nope"/],
    ['emails[type eq "work"].nope pr', /unknown attribute "emails\.nope"/],
    ['nope[type eq "work"]', /unknown attribute "nope"/],
    ['userName eq "x" or nope pr', /unknown attribute "nope"/],
    ["not (nope pr)", /unknown attribute "nope"/],
  ])("rejects the unknown attribute in %s, naming it", (text, detail) => {
    expect(rejection(text)).toMatch(detail);
  });

  it("only knows the attributes of the resource type it is given", () => {
    expect(rejection('userName eq "x"', groups)).toMatch(/unknown attribute "userName"/);
    expect(shape(compiled('displayName eq "Admins"', groups))).toEqual({ eq: ["displayName", "Admins"] });
    expect(rejection(`${TEST_URN}:level eq 1`, users)).toMatch(/unknown attribute/);
  });
});

describe("resolveFilter: value filters", () => {
  it("resolves inner paths as sub-attributes of the bracketed attribute", () => {
    const filter = compiled('emails[type eq "work" and value co "@example.com"]');
    expect(shape(filter)).toEqual({
      "emails[]": { and: [{ eq: ["emails.type", "work"] }, { co: ["emails.value", "@example.com"] }] },
    });
    if (filter.kind !== "valuePath") throw new Error("expected a valuePath");
    expect(filter.path.subAttribute).toBeUndefined();
    expect(filter.path.attribute.name).toBe("emails");
  });

  it("keeps the URN prefix of an extension attribute for its inner paths", () => {
    expect(shape(compiled(`${ENTERPRISE_URN}:manager[value eq "26118915"]`))).toEqual({
      [`${ENTERPRISE_URN}:manager[]`]: { eq: [`${ENTERPRISE_URN}:manager.value`, "26118915"] },
    });
    // Unqualified, the extension is found by its attribute and the inner paths follow it.
    expect(shape(compiled('manager[displayName co "smith"]'))).toEqual({
      [`${ENTERPRISE_URN}:manager[]`]: { co: [`${ENTERPRISE_URN}:manager.displayName`, "smith"] },
    });
    expect(shape(compiled(`${TEST_URN}:devices[serial eq "A1" and not (trusted eq true)]`))).toEqual({
      [`${TEST_URN}:devices[]`]: {
        and: [{ eq: [`${TEST_URN}:devices.serial`, "A1"] }, { not: { eq: [`${TEST_URN}:devices.trusted`, true] } }],
      },
    });
  });

  it("accepts a single-valued complex attribute in brackets", () => {
    expect(shape(compiled('name[givenName eq "Barbara" and familyName pr]'))).toEqual({
      "name[]": { and: [{ eq: ["name.givenName", "Barbara"] }, { pr: "name.familyName" }] },
    });
  });

  it('binds emails[type eq "work"].value ew "x" to one element', () => {
    expect(shape(compiled('emails[type eq "work"].value ew "x"'))).toEqual({
      "emails[]": { and: [{ eq: ["emails.type", "work"] }, { ew: ["emails.value", "x"] }] },
    });
  });

  it.each<[string, RegExp]>([
    ['userName[value eq "x"]', /"userName\[…\]" needs a complex attribute/],
    ['emails.value[type eq "x"]', /"emails\.value\[…\]" needs a complex attribute/],
    [`${ENTERPRISE_URN}:department[value eq "x"]`, /needs a complex attribute/],
    // Inside brackets a path names a sub-attribute, never a full path.
    ['emails[emails.type eq "work"]', /unknown attribute "emails\.emails\.type"/],
    [`emails[${USER_URN}:emails.type eq "work"]`, /unknown attribute/],
  ])("rejects %s", (text, detail) => {
    expect(rejection(text)).toMatch(detail);
  });

  it("rejects a value filter nested in another one even when built by hand", () => {
    const nested: ParsedFilter = {
      kind: "valuePath",
      path: "emails",
      filter: { kind: "valuePath", path: "type", filter: { kind: "present", path: "value" } },
    };
    const result = resolveFilter(users, nested);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.scimType).toBe(ScimType.invalidFilter);
      expect(result.error.detail).toMatch(/cannot appear inside "emails\[…\]"/);
    }
  });
});

describe("resolveFilter: complex attributes compared as a whole", () => {
  it('binds emails co "example.com" to emails.value (RFC 7644 §3.4.2.2 example)', () => {
    const filter = compare('emails co "example.com"');
    expect(filter.path.attribute.name).toBe("emails");
    expect(filter.path.subAttribute?.name).toBe("value");
    expect(shape(compiled('emails eq "a@b.c"'))).toEqual({ eq: ["emails.value", "a@b.c"] });
    expect(shape(compiled(`${ENTERPRISE_URN}:manager eq "26118915"`))).toEqual({ eq: [`${ENTERPRISE_URN}:manager.value`, "26118915"] });
  });

  it("keeps a complex attribute whole for pr and for eq/ne null", () => {
    expect(compiled("name pr")).toMatchObject({ kind: "present", path: { attribute: { name: "name" } } });
    expect(compiled("emails pr")).toMatchObject({ kind: "present", path: { attribute: { name: "emails" } } });
    expect(compare("name eq null").path.subAttribute).toBeUndefined();
    expect(compare("addresses ne null").path.subAttribute).toBeUndefined();
  });

  it.each<[string, RegExp]>([
    ['name eq "Barbara"', /"name" is a complex attribute; compare one of its sub-attributes \(formatted, familyName, givenName/],
    ['addresses co "Main"', /"addresses" is a complex attribute/],
    [`${TEST_URN}:devices eq "A1"`, /is a complex attribute; compare one of its sub-attributes \(serial, kind, lastSeen, trusted\)/],
    ['emails gt "a"', /"emails" is a complex attribute; "gt" needs one of its sub-attributes/],
    ['emails le "a"', /"le" needs one of its sub-attributes/],
    ['meta lt "2011-05-13T04:42:34Z"', /"meta" is a complex attribute/],
    ["name co null", /"name" is a complex attribute/],
    ["emails co null", /"emails\.value co null": null can only be compared with eq or ne/],
  ])("rejects %s", (text, detail) => {
    expect(rejection(text)).toMatch(detail);
  });
});

describe("resolveFilter: operators and value types (RFC 7644 §3.4.2.2)", () => {
  it.each(["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"])("accepts strings with %s", (op) => {
    expect(compare(`title ${op} "x"`).value).toBe("x");
    expect(compare(`${TEST_URN}:homepage ${op} "https://x"`).value).toBe("https://x");
  });

  it.each(["gt", "ge", "lt", "le", "co", "sw", "ew"])("rejects %s on a boolean attribute", (op) => {
    expect(rejection(`active ${op} true`)).toMatch(new RegExp(`"active" is a boolean attribute; "${op}" does not apply to it`));
    expect(rejection(`emails.primary ${op} true`)).toMatch(/boolean attribute/);
  });

  it.each<[string, boolean]>([
    ["true", true],
    ["false", false],
    ['"true"', true],
    ['"True"', true],
    ['"FALSE"', false],
    ['"False"', false],
  ])("accepts active eq %s as the boolean %s", (literal, value) => {
    expect(compare(`active eq ${literal}`).value).toBe(value);
    expect(compare(`active ne ${literal}`).value).toBe(value);
  });

  it.each(['"yes"', '""', "1", "0", '"truee"'])("rejects active eq %s", (literal) => {
    expect(rejection(`active eq ${literal}`)).toMatch(/"active" is a boolean attribute; it cannot be compared with/);
  });

  it.each(["42", "true", "false", "-1.5"])("rejects a string attribute compared with %s", (literal) => {
    expect(rejection(`userName eq ${literal}`)).toMatch(
      /"userName" is a string attribute; it cannot be compared with the (number|boolean)/,
    );
  });

  it.each(["eq", "ne", "gt", "ge", "lt", "le"])("accepts numbers with %s on integer and decimal attributes", (op) => {
    expect(compare(`level ${op} 3`).value).toBe(3);
    expect(compare(`level ${op} 2.5`).value).toBe(2.5);
    expect(compare(`score ${op} -1e-3`).value).toBe(-0.001);
  });

  it.each<[string, RegExp]>([
    ['level eq "3"', /"urn:.*:level" is a numeric \(integer\) attribute; it cannot be compared with the string "3"/],
    ["score gt true", /numeric \(decimal\) attribute; it cannot be compared with the boolean true/],
    ["level co 3", /is an integer attribute; "co" does not apply to it/],
    ["score sw 1", /is a decimal attribute; "sw" does not apply to it/],
  ])("rejects %s", (text, detail) => {
    expect(rejection(text)).toMatch(detail);
  });

  it("normalizes dateTime values to their canonical instant", () => {
    expect(compare('meta.lastModified eq "2011-05-13T06:42:34+02:00"').value).toBe("2011-05-13T04:42:34.000Z");
    expect(compare('hiredAt ge "2020-01-01T00:00:00.5Z"').value).toBe("2020-01-01T00:00:00.500Z");
  });

  it.each<[string, RegExp]>([
    ['meta.lastModified gt "yesterday"', /is a dateTime attribute; the string "yesterday" is not an ISO 8601 date-time/],
    ['meta.lastModified gt "2011-05-13"', /not an ISO 8601 date-time/],
    ['meta.lastModified gt "2011-13-45T04:42:34Z"', /not an ISO 8601 date-time/],
    ["meta.lastModified gt 1305261754", /the number 1305261754 is not an ISO 8601 date-time/],
    ["hiredAt eq true", /not an ISO 8601 date-time/],
    ['meta.lastModified co "2011"', /dateTime attribute; "co" does not apply/],
    ['hiredAt sw "2011-05-13T04:42:34Z"', /dateTime attribute; "sw" does not apply/],
  ])("rejects %s", (text, detail) => {
    expect(rejection(text)).toMatch(detail);
  });

  it("allows only eq and ne on binary attributes (RFC 7644 §3.4.2.2)", () => {
    expect(compare('fingerprint eq "QUJD"').value).toBe("QUJD");
    expect(compare('x509Certificates.value ne "QUJD"').value).toBe("QUJD");
    for (const op of ["gt", "ge", "lt", "le", "co", "sw", "ew"]) {
      expect(rejection(`fingerprint ${op} "QUJD"`)).toMatch(/binary attribute; ".." does not apply/);
    }
    expect(rejection("fingerprint eq 1")).toMatch(/binary attribute/);
  });

  it("compares null only with eq and ne", () => {
    expect(compare("title eq null").value).toBeNull();
    expect(compare("active ne null").value).toBeNull();
    expect(compare("level eq null").value).toBeNull();
    expect(compare("meta.lastModified eq null").value).toBeNull();
    for (const op of ["co", "sw", "ew", "gt", "ge", "lt", "le"]) {
      expect(rejection(`title ${op} null`)).toMatch(new RegExp(`"title ${op} null": null can only be compared with eq or ne`));
    }
  });

  it("checks types inside value filters too", () => {
    expect(rejection("emails[primary gt true]")).toMatch(/"emails\.primary" is a boolean attribute/);
    expect(rejection("emails[value eq 1]")).toMatch(/"emails\.value" is a string attribute/);
    expect(shape(compiled('emails[primary eq "True"]'))).toEqual({ "emails[]": { eq: ["emails.primary", true] } });
  });
});

describe("compileFilter", () => {
  it("passes parse errors through unchanged", () => {
    expect(rejection('userName eq "x')).toMatch(/unterminated or malformed string/);
  });

  it("honours the parser limits", () => {
    const result = compileFilter(testUsers, 'userName eq "bjensen"', { maxLength: 5 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.detail).toMatch(/the limit is 5/);
    expect(compileFilter(testUsers, "((title pr))", { maxDepth: 1 }).ok).toBe(false);
    expect(compileFilter(testUsers, "((title pr))", { maxDepth: 2 }).ok).toBe(true);
  });

  it.each([
    'userName eq "bjensen"',
    `name.familyName co "O'Malley"`,
    'userName sw "J"',
    'urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"',
    "title pr",
    'meta.lastModified gt "2011-05-13T04:42:34Z"',
    'meta.lastModified ge "2011-05-13T04:42:34Z"',
    'meta.lastModified lt "2011-05-13T04:42:34Z"',
    'meta.lastModified le "2011-05-13T04:42:34Z"',
    'title pr and userType eq "Employee"',
    'title pr or userType eq "Intern"',
    'schemas eq "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"',
    'userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")',
    'userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")',
    'userType eq "Employee" and (emails.type eq "work")',
    'userType eq "Employee" and emails[type eq "work" and value co "@example.com"]',
    'emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]',
  ])("compiles the RFC 7644 §3.4.2.2 example %s against the plain User resource type", (text) => {
    const result = compileFilter(users, text);
    expect(result.ok ? "compiled" : result.error.detail).toBe("compiled");
  });
});
