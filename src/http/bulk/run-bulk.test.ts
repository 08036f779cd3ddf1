/**
 * `/Bulk`'s dependency graph (RFC 7644 §3.7.1–3.7.2, architecture §4b), run against the real resource
 * service on a memory store: operations run lowest index first among those whose references exist,
 * in one pass however the references chain; what can never resolve fails with 409.
 */
import { describe, expect, it } from "vitest";
import { createSchemaRegistry } from "../../scim/schema/schema-registry.js";
import { rfc7643Profile } from "../../scim/schema/resource-profile.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { memoryStore } from "../../store/memory/memory-store.js";
import { createResourceService } from "../resource-service/create-resource-service.js";
import { BULK_REQUEST_SCHEMA, runBulk } from "./run-bulk.js";
import type { ScimEvent } from "../lifecycle-events/scim-event.js";
import { DEFAULT_WRITE_LIMITS } from "../resource-service/write-limits.js";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const context = { orgId: "acme", baseUrl: "https://scim.example.com/v2" };

function bulkService(): { service: ReturnType<typeof createResourceService>; created: string[] } {
  const created: string[] = [];
  const service = createResourceService({
    store: memoryStore(),
    registry: createSchemaRegistry(),
    profile: rfc7643Profile,
    unknownMembers: "ignore",
    filterLimits: {},
    writeLimits: DEFAULT_WRITE_LIMITS,
    defaultPageSize: 100,
    maxPageSize: 1000,
    cursorSecret: "",
    emit: async (event: ScimEvent) => {
      if (event.type === "user.created" || event.type === "group.created")
        created.push(String(event.resource["userName"] ?? event.resource["displayName"]));
    },
  });
  return { service, created };
}

/** A POST of a user named `name`, whose manager is the resource `bulkId:manager` when given. */
function postUser(bulkId: string, name: string, manager?: string): ScimObject {
  return {
    method: "POST",
    path: "/Users",
    bulkId,
    data: {
      schemas: [USER],
      userName: name,
      ...(manager === undefined ? {} : { [ENTERPRISE]: { manager: { value: `bulkId:${manager}` } } }),
    },
  };
}

async function run(
  operations: readonly ScimObject[],
): Promise<{ results: ScimObject[]; created: string[]; service: ReturnType<typeof createResourceService> }> {
  const { service, created } = bulkService();
  const response = await runBulk(
    service,
    context,
    { schemas: [BULK_REQUEST_SCHEMA], Operations: operations },
    { maxOperations: 1000 },
    (error) => {
      throw error;
    },
  );
  return { results: response["Operations"] as ScimObject[], created, service };
}

function idOf(result: ScimObject | undefined): string {
  const location = String(result?.["location"]);
  return location.slice(location.lastIndexOf("/") + 1);
}

function detailOf(result: ScimObject | undefined): string {
  return String((result?.["response"] as ScimObject | undefined)?.["detail"]);
}

describe("runBulk: bulkId references as a dependency graph", () => {
  it("runs a chain written in reverse order from its end, each operation once, with every reference resolved", async () => {
    const count = 300;
    const operations = Array.from({ length: count }, (_, index) =>
      postUser(`b${index}`, `u${index}`, index + 1 < count ? `b${index + 1}` : undefined),
    );
    const { results, created } = await run(operations);
    expect(results.map((result) => result["status"])).toEqual(Array.from({ length: count }, () => "201"));
    expect(created).toEqual(Array.from({ length: count }, (_, index) => `u${count - 1 - index}`));
    expect(results.map((result) => result["bulkId"])).toEqual(operations.map((operation) => operation["bulkId"]));
  });

  it("runs a diamond lowest index first among the ready: the shared dependency, then its dependents in request order, then the top", async () => {
    const { results, created } = await run([
      {
        method: "POST",
        path: "/Groups",
        bulkId: "top",
        data: { displayName: "top", members: [{ value: "bulkId:left" }, { value: "bulkId:right" }] },
      },
      postUser("left", "left", "base"),
      postUser("right", "right", "base"),
      postUser("base", "base"),
    ]);
    expect(created).toEqual(["base", "left", "right", "top"]);
    expect(results.map((result) => result["status"])).toEqual(["201", "201", "201", "201"]);
  });

  it("answers 409 for a cycle, for what waits on it and for a self-reference, and runs the rest", async () => {
    const { results, created } = await run([
      postUser("x", "x", "y"),
      postUser("y", "y", "x"),
      postUser("z", "z", "x"),
      postUser("self", "self", "self"),
      postUser("free", "free"),
    ]);
    expect(results.map((result) => result["status"])).toEqual(["409", "409", "409", "409", "201"]);
    expect(detailOf(results[0])).toMatch(/Circular bulkId references/);
    expect(detailOf(results[3])).toMatch(/Circular bulkId references/);
    expect(created).toEqual(["free"]);
  });

  it("answers 409 for a reference no operation defines, and for one to a POST that failed, wherever it stands", async () => {
    const { results, created } = await run([
      postUser("early", "early", "broken"),
      postUser("unknown", "unknown", "nobody"),
      { method: "POST", path: "/Users", bulkId: "broken", data: { schemas: [USER] } },
      postUser("late", "late", "broken"),
    ]);
    expect(results.map((result) => result["status"])).toEqual(["409", "409", "400", "409"]);
    expect(detailOf(results[1])).toBe("bulkId:nobody cannot be resolved: no successful POST in this request has that bulkId.");
    expect(detailOf(results[0])).toMatch(/bulkId:broken cannot be resolved/);
    expect(created).toEqual([]);
  });

  it("writes the id each reference resolved to", async () => {
    const { results, service } = await run([postUser("a", "a", "b"), postUser("b", "b")]);
    const a = await service.get({ context, resourceType: "User", id: idOf(results[0]), members: false });
    expect((a.resource[ENTERPRISE] as { manager: { value: string } }).manager.value).toBe(idOf(results[1]));
  });
});
