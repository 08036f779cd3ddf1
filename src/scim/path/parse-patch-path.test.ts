import { describe, expect, it } from "vitest";
import { unwrap } from "../../result.js";
import { ENTERPRISE_URN, USER_URN } from "../sample-resources.fixture.js";
import { matchesFilter } from "../filter/matches-filter.js";
import { createSchemaRegistry } from "../schema/schema-registry.js";
import { parsePatchPath } from "./parse-patch-path.js";

const registry = createSchemaRegistry();
const users = registry.resourceType("User")!;
const groups = registry.resourceType("Group")!;

function invalid(text: string, schema = users) {
  const result = parsePatchPath(schema, text);
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error("expected a failure");
  return result.error;
}

describe("parsePatchPath: attribute paths", () => {
  it("binds a simple attribute, case-insensitively, to its canonical definition", () => {
    const path = unwrap(parsePatchPath(users, "USERNAME"));
    expect(path.text).toBe("USERNAME");
    expect(path.target.attribute.name).toBe("userName");
    expect(path.target.schema).toBe(USER_URN);
    expect(path.target.extension).toBe(false);
    expect(path.filter).toBeUndefined();
    expect(path.subAttribute).toBeUndefined();
  });

  it("splits attr.sub into the top-level target and the sub-attribute", () => {
    const path = unwrap(parsePatchPath(users, "name.familyName"));
    expect(path.target.attribute.name).toBe("name");
    expect(path.target.subAttribute).toBeUndefined();
    expect(path.subAttribute?.name).toBe("familyName");
  });

  it("binds URN-qualified extension paths, with and without a sub-attribute", () => {
    const manager = unwrap(parsePatchPath(users, `${ENTERPRISE_URN}:manager`));
    expect(manager.target).toMatchObject({ schema: ENTERPRISE_URN, extension: true });
    expect(manager.target.attribute.name).toBe("manager");
    const value = unwrap(parsePatchPath(users, `${ENTERPRISE_URN.toUpperCase()}:MANAGER.VALUE`));
    expect(value.target.attribute.name).toBe("manager");
    expect(value.subAttribute?.name).toBe("value");
  });

  it("accepts the spec's employeeNumber alias and binds it to the RFC attribute", () => {
    const path = unwrap(parsePatchPath(users, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber"));
    expect(path.target).toMatchObject({ schema: ENTERPRISE_URN, extension: true });
    expect(path.target.attribute.name).toBe("employeeNumber");
  });

  it("accepts a core URN prefix", () => {
    const path = unwrap(parsePatchPath(users, `${USER_URN}:userName`));
    expect(path.target.attribute.name).toBe("userName");
  });
});

describe("parsePatchPath: value paths", () => {
  it('binds emails[type eq "work"] to a valuePath filter that tests one element', () => {
    const path = unwrap(parsePatchPath(users, 'emails[type eq "work"]'));
    expect(path.target.attribute.name).toBe("emails");
    expect(path.subAttribute).toBeUndefined();
    const filter = path.filter!;
    expect(filter.kind).toBe("valuePath");
    expect(matchesFilter({ emails: [{ type: "WORK", value: "a@b" }] }, filter)).toBe(true);
    expect(matchesFilter({ emails: [{ type: "home", value: "a@b" }] }, filter)).toBe(false);
  });

  it("binds the sub-attribute after the filter", () => {
    const path = unwrap(parsePatchPath(users, 'Emails[Type eq "work"].VALUE'));
    expect(path.target.attribute.name).toBe("emails");
    expect(path.subAttribute?.name).toBe("value");
    expect(path.filter?.filter).toMatchObject({ kind: "compare", op: "eq", value: "work" });
  });

  it('binds members[value eq "…"] on groups', () => {
    const path = unwrap(parsePatchPath(groups, 'members[value eq "2819c223-7f76-453a-919d-413861904646"]'));
    expect(path.target.attribute.name).toBe("members");
    expect(matchesFilter({ members: [{ value: "2819c223-7f76-453a-919d-413861904646" }] }, path.filter!)).toBe(true);
  });

  it("finds the closing bracket past brackets and escaped quotes inside string values", () => {
    const path = unwrap(parsePatchPath(users, 'emails[value eq "a]\\"[b"].type'));
    expect(path.subAttribute?.name).toBe("type");
    expect(path.filter?.filter).toMatchObject({ value: 'a]"[b' });
  });

  it("binds a compound filter and typed comparison values", () => {
    const path = unwrap(parsePatchPath(users, 'roles[primary eq "True" and value sw "Tour"].value'));
    expect(path.filter?.filter).toMatchObject({
      kind: "and",
      filters: [
        { op: "eq", value: true },
        { op: "sw", value: "Tour" },
      ],
    });
  });
});

describe("parsePatchPath: errors are 400 invalidPath naming the path", () => {
  it.each([
    ["", "empty"],
    ["   ", "empty"],
    ["nosuchattribute", "nosuchattribute"],
    ["name.nosuch", "name.nosuch"],
    ["userName.value", "userName.value"],
    ["name.givenName.more", "name.givenName.more"],
    ['emails[type eq "work"', "never closed"],
    ['emails[type eq "work"]value', "may follow"],
    ['emails[type eq "work"].nosuch', "nosuch"],
    ['emails[type eq "work"].value.more', "may follow"],
    ['emails[type eq "work"] ', undefined],
    ["emails[type eq]", "emails[type eq]"],
    ['emails[nosuch eq "x"]', "nosuch"],
    ["emails[value eq 42]", "emails[value eq 42]"],
    ['userName[value eq "x"]', "multi-valued complex"],
    ['name[givenName eq "x"]', "multi-valued complex"],
    ['emails.value[value eq "x"]', "multi-valued complex"],
    ['emails[type eq "work"][value eq "x"]', "may follow"],
    ["emails]", '"]"'],
    ["urn:example:unknown:1.0:User:foo", "urn:example:unknown"],
  ])("%j", (text, mention) => {
    if (mention === undefined) {
      // Trailing blanks are harmless and trimmed.
      expect(parsePatchPath(users, text).ok).toBe(true);
      return;
    }
    const error = invalid(text);
    expect(error.status).toBe(400);
    expect(error.scimType).toBe("invalidPath");
    expect(error.detail).toContain(mention);
  });

  it("refuses a value filter nested inside a value filter", () => {
    const error = invalid('emails[type eq "work" and addresses[type eq "home"]]');
    expect(error.scimType).toBe("invalidPath");
  });

  it("applies the filter limits to the path", () => {
    const result = parsePatchPath(users, `emails[value eq "${"x".repeat(200)}"]`, { maxLength: 50 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.scimType).toBe("invalidPath");
  });

  it("refuses members filters on a user and user attributes on a group", () => {
    expect(invalid('members[value eq "x"]').scimType).toBe("invalidPath");
    expect(invalid("userName", groups).scimType).toBe("invalidPath");
  });
});
