import { describe, expect, it } from "vitest";
import { createSchemaRegistry } from "./schema-registry.js";
import { valueCountIssues } from "./value-count-issues.js";

const registry = createSchemaRegistry();
const users = registry.resourceType("User")!;
const groups = registry.resourceType("Group")!;
const values = (count: number) => Array.from({ length: count }, (_, index) => ({ value: `v${index}` }));

describe("valueCountIssues", () => {
  it("accepts maxValues values and names each attribute holding one more, with the count and the limit", () => {
    expect(valueCountIssues(users, { emails: values(3), phoneNumbers: values(3) }, 3)).toEqual([]);
    expect(valueCountIssues(users, { emails: values(4), phoneNumbers: values(3), roles: values(5) }, 3)).toEqual([
      { path: "emails", message: "holds 4 values; the limit is 3 (maxValues)" },
      { path: "roles", message: "holds 5 values; the limit is 3 (maxValues)" },
    ]);
  });

  it("skips exempt attributes: group members have their own limit", () => {
    expect(valueCountIssues(groups, { members: values(9) }, 3, (attribute) => attribute.name === "members")).toEqual([]);
    expect(valueCountIssues(groups, { members: values(9) }, 3)).toHaveLength(1);
  });
});
