/**
 * The rules every operation follows, checked over the whole list of operations rather than one
 * by one: 401 without a valid key, 400 naming an unknown query parameter, 404 for unknown ids,
 * and 404 — never the data, never 403 — for another organization's ids.
 */
import { describe, expect, it } from "vitest";
import { analyticsOperations } from "../../src/analytics/definitions/analytics-operations.js";
import type { OperationDefinition } from "../../src/analytics/definitions/operation-definition.js";
import { POPULATED, expectInvalidFields, expectProblem, settle, UNKNOWN, type Json } from "./analytics-harness.js";
import { createWorld, type World } from "./analytics-world.js";

const operations = analyticsOperations as readonly OperationDefinition[];

/** A body each writing operation accepts, so only the rule under test can refuse the request. */
function validBody(operation: OperationDefinition, w: World): unknown {
  switch (operation.operationId) {
    case "createOrganization":
      return { name: "Valid" };
    case "updateOrganization":
      return { name: "Valid" };
    case "inviteAdminUser":
      return { email: "valid@example.com", role: "viewer", organizationIds: [w.orgA.id] };
    case "updateAdminUser":
      return { role: "viewer" };
    case "acceptInvitation":
      return { code: "valid-looking" };
    case "issueOrganizationToken":
      return { label: "Valid" };
    case "rotateOrganizationToken":
      return {};
    case "addOrganizationEventReceiver":
      return { url: "https://receiver.example.com/events" };
    case "moveOrganization":
      return { organizationId: w.orgA.id, to: "eu" };
    case "createSetupLink":
      return {};
    case "openSetup":
      return { code: "scimkit_link_valid-looking" };
    case "chooseSetupIdentityProvider":
      return { identityProvider: "okta" };
    default:
      return undefined;
  }
}

/** The path of `operation` on organization A's resources (or unknown ones). */
async function pathsOf(w: World): Promise<(operation: OperationDefinition, unknown?: boolean) => string> {
  const report = await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`);
  const operationId = (report.body as { operation: { id: string } }).operation.id;
  await settle(w.t, operationId);
  const tokens = await w.t.get(`/organizations/${w.orgA.id}/tokens`);
  const tokenA = (tokens.body as { data: { id: string }[] }).data[0]?.id ?? "";
  const receiver = await w.t.post(`/organizations/${w.orgA.id}/event-receivers`, { url: "https://a.example.com/events" });
  expect(receiver.status).toBe(201);
  const receiverA = (receiver.body as { id: string }).id;
  return (operation, unknown = false) => {
    const id = unknown
      ? UNKNOWN
      : operation.path.startsWith("/organizations")
        ? w.orgA.id
        : operation.path.startsWith("/admin-users")
          ? w.adminUsers.viewerA
          : operation.path.startsWith("/campaigns")
            ? w.campaignA.id
            : operation.path.startsWith("/attack-simulations")
              ? w.simulationA.id
              : operationId;
    return operation.path
      .replace("{id}", id)
      .replace("{userId}", w.users.alice)
      .replace("{tokenId}", tokenA)
      .replace("{receiverId}", receiverA);
  };
}

async function send(w: World, operation: OperationDefinition, path: string, key: string | null): Promise<import("supertest").Response> {
  const body = validBody(operation, w);
  return w.t.send(operation.method.toUpperCase(), path, { key, ...(body === undefined ? {} : { body }) });
}

describe("every operation", POPULATED, () => {
  it("needs a valid key, unless it is public, and answers every failure with the same 401", async () => {
    const w = await createWorld({ securityEvents: true });
    const path = await pathsOf(w);
    const protectedOperations = operations.filter((operation) => operation.access !== "public");
    expect(protectedOperations.length).toBeGreaterThan(20);
    let first: Json | undefined;
    for (const operation of protectedOperations) {
      for (const key of [null, "scimkit_ak_wrong", w.orgA.scim.token]) {
        const problem = expectProblem(await send(w, operation, path(operation), key), 401, "unauthorized");
        first ??= problem;
        expect(problem, operation.operationId).toEqual(first);
      }
    }
  });

  it("refuses an unknown query parameter by name, before doing anything", async () => {
    const w = await createWorld({ securityEvents: true });
    const path = await pathsOf(w);
    // The setup operations take a setup link's session instead of an API key (issue 31).
    const link = await w.t.post(`/organizations/${w.orgA.id}/setup-links`, {});
    const code = decodeURIComponent(new URL(String((link.body as Json)["url"])).hash.replace(/^#code=/, ""));
    const session = String(((await w.t.send("POST", "/setup/session", { key: null, body: { code } })).body as Json)["session"]);
    for (const operation of operations) {
      const key = operation.access === "setup" ? session : w.t.operatorKey;
      const response = await send(w, operation, `${path(operation)}?bogus=1`, key);
      expectInvalidFields(response, ["bogus"]);
    }
    // Nothing was created, changed or deleted on the way.
    expect(((await w.t.get("/organizations")).body as { data: unknown[] }).data).toHaveLength(2);
    expect(((await w.t.get(`/admin-users/${w.adminUsers.viewerA}`)).body as Json)["role"]).toBe("viewer");
    expect(((await w.t.get(`/organizations/${w.orgA.id}`)).body as Json)["name"]).toBe("Acme");
  });

  it("answers 404 for unknown ids", async () => {
    const w = await createWorld({ securityEvents: true });
    const path = await pathsOf(w);
    for (const operation of operations.filter((candidate) => candidate.pathParameters !== undefined)) {
      expectProblem(await send(w, operation, path(operation, true), w.t.operatorKey), 404, "not-found");
    }
    // A known organization with an unknown token or receiver.
    for (const operation of operations.filter((candidate) => /\{(tokenId|receiverId)\}/.test(candidate.path))) {
      const unknownChild = operation.path.replace("{id}", w.orgA.id).replace(/\{(tokenId|receiverId)\}/, UNKNOWN);
      expectProblem(await send(w, operation, unknownChild, w.t.operatorKey), 404, "not-found");
    }
  });

  it("answers 404 to an admin of organization B for each of organization A's ids, as for unknown ones", async () => {
    const w = await createWorld({ securityEvents: true });
    const path = await pathsOf(w);
    const scoped = operations.filter((operation) => operation.pathParameters !== undefined && operation.access !== "operator");
    expect(scoped.length).toBeGreaterThan(15);
    for (const operation of scoped) {
      const foreign = expectProblem(await send(w, operation, path(operation), w.keys.adminB), 404, "not-found");
      const unknown = expectProblem(await send(w, operation, path(operation, true), w.keys.adminB), 404, "not-found");
      expect(foreign, operation.operationId).toEqual(unknown);
    }
    // Organization A's data is as it was.
    expect(((await w.t.get(`/organizations/${w.orgA.id}`)).body as Json)["name"]).toBe("Acme");
    expect((await w.t.get(`/admin-users/${w.adminUsers.viewerA}`)).status).toBe(200);
  });
});
