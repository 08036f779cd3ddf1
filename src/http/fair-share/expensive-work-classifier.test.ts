import { describe, expect, it } from "vitest";
import { unwrap } from "../../result.js";
import { compileFilter } from "../../scim/filter/resolve-filter.js";
import { createSchemaRegistry } from "../../scim/schema/schema-registry.js";
import type { CursorPage, IndexPage, ListRequest } from "../../store/resource-store.js";
import { expensiveWorkClassifier } from "./expensive-work-classifier.js";
import type { ScimWork } from "./work-classifier.js";

const registry = createSchemaRegistry();
const users = registry.resourceType("User")!;
const groups = registry.resourceType("Group")!;
const firstPage: IndexPage = { kind: "index", startIndex: 1, count: 100 };

function list(
  options: { filter?: string; sortBy?: string; page?: IndexPage | CursorPage; members?: boolean; type?: "User" | "Group" } = {},
): ScimWork {
  const schema = options.type === "Group" ? groups : users;
  const sortPath = options.sortBy === undefined ? undefined : schema.resolvePath(options.sortBy);
  const request: ListRequest = {
    orgId: "acme",
    resourceType: schema.resourceType.id,
    ...(options.filter === undefined ? {} : { filter: unwrap(compileFilter(schema, options.filter)) }),
    ...(sortPath?.ok ? { sort: { path: sortPath.path, order: "ascending" as const } } : {}),
    page: options.page ?? firstPage,
    members: options.members ?? false,
  };
  return { kind: "list", request };
}

describe("expensiveWorkClassifier", () => {
  const classifier = expensiveWorkClassifier();

  it.each([
    'userName eq "alice@example.com"',
    'externalId eq "e-1"',
    'id eq "2819c223-7f76-453a-919d-413861904646"',
    'userName eq "a" or userName eq "b"',
    'userName eq "a" and title pr',
    'externalId eq "e-1" and emails.value co "x"',
  ])("calls an indexed lookup cheap, whatever its sort and page: %s", (filter) => {
    expect(classifier.isExpensive(list({ filter }))).toBe(false);
    expect(
      classifier.isExpensive(list({ filter, sortBy: "name.familyName", page: { kind: "index", startIndex: 40_000, count: 1000 } })),
    ).toBe(false);
  });

  it("calls a Group displayName lookup cheap: the name is unique", () => {
    expect(classifier.isExpensive(list({ type: "Group", filter: 'displayName eq "Staff"', members: true }))).toBe(false);
  });

  it.each([
    'emails.value co "x"',
    'name.familyName ew "z" or title pr',
    'userName eq "a" or title pr',
    'displayName eq "Ada Lovelace"',
    'not (userName eq "a")',
    'userName sw "a"',
    'emails[type eq "work"].value eq "a@example.com"',
  ])("calls a filter that needs a scan expensive: %s", (filter) => {
    expect(classifier.isExpensive(list({ filter }))).toBe(true);
  });

  it("calls any sort, a deep start, a large page and a page of groups with members expensive", () => {
    expect(classifier.isExpensive(list({ sortBy: "name.familyName" }))).toBe(true);
    expect(classifier.isExpensive(list({ page: { kind: "index", startIndex: 1001, count: 100 } }))).toBe(true);
    expect(classifier.isExpensive(list({ page: { kind: "index", startIndex: 1, count: 201 } }))).toBe(true);
    expect(classifier.isExpensive(list({ page: { kind: "cursor", count: 500 } }))).toBe(true);
    expect(classifier.isExpensive(list({ type: "Group", members: true }))).toBe(true);
  });

  it("calls a short walk along the id order cheap: first pages, pages up to startIndex 1,000, cursor pages", () => {
    expect(classifier.isExpensive(list())).toBe(false);
    expect(classifier.isExpensive(list({ page: { kind: "index", startIndex: 1000, count: 200 } }))).toBe(false);
    expect(classifier.isExpensive(list({ page: { kind: "cursor", after: { key: null, id: "x" }, count: 101 } }))).toBe(false);
    expect(classifier.isExpensive(list({ type: "Group" }))).toBe(false);
  });

  it("calls every Bulk request expensive", () => {
    expect(classifier.isExpensive({ kind: "bulk", orgId: "acme", operations: 1 })).toBe(true);
  });

  it("calls a body over 64 KiB, or chunked with no length, expensive on its headers, and an identity provider's few KiB cheap", () => {
    const body = (bytes: number | undefined): ScimWork => ({ kind: "body", orgId: "acme", method: "PATCH", bytes });
    expect(classifier.isExpensive(body(3_000))).toBe(false);
    expect(classifier.isExpensive(body(65_536))).toBe(false);
    expect(classifier.isExpensive(body(65_537))).toBe(true);
    expect(classifier.isExpensive(body(undefined))).toBe(true);
    expect(expensiveWorkClassifier({ largeBody: 1024 }).isExpensive(body(2048))).toBe(true);
    expect(() => expensiveWorkClassifier({ largeBody: 1.5 })).toThrow(/largeBody/);
  });

  it("takes its thresholds from the options", () => {
    const lenient = expensiveWorkClassifier({ deepStartIndex: 50_000, largeCount: 1000 });
    expect(lenient.isExpensive(list({ page: { kind: "index", startIndex: 40_000, count: 1000 } }))).toBe(false);
    expect(lenient.isExpensive(list({ page: { kind: "index", startIndex: 50_001, count: 10 } }))).toBe(true);
    expect(() => expensiveWorkClassifier({ deepStartIndex: -1 })).toThrow(/deepStartIndex/);
  });
});
