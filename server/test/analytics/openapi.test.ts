/**
 * The OpenAPI 3.1 document (issue 6: "the OpenAPI document validates and matches the routes"):
 * it passes an OpenAPI schema validator, every route of the router is in it, every documented
 * path and method is served (never answered as an unknown endpoint), and it names the server it
 * was fetched from. That responses match their documented schemas is checked on every response
 * of every analytics test by the harness.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import type express from "express";
import { describe, expect, it } from "vitest";
import { createAnalyticsRouter } from "../../src/analytics/create-analytics-router.js";
import { analyticsOperations } from "../../src/analytics/definitions/analytics-operations.js";
import { openApiDocument } from "../../src/analytics/definitions/openapi-document.js";
import { POPULATED, createAnalyticsTestApp, type Json } from "./analytics-harness.js";

/** The layers of an Express 4 or 5 router that carry a route. */
interface RouteLayer {
  readonly route?: { readonly path: string; readonly methods: Readonly<Record<string, boolean>> };
}

function routesOf(router: express.Router): string[] {
  const routes: string[] = [];
  for (const layer of (router as unknown as { stack: readonly RouteLayer[] }).stack) {
    if (!layer.route) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      // `_all` is the 405 answer registered for each documented path, not an operation.
      if (on && method !== "_all") routes.push(`${method.toUpperCase()} ${layer.route.path}`);
    }
  }
  return routes.sort();
}

describe("the OpenAPI document", POPULATED, () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiDocument("https://example.com/analytics/v1"));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("documents exactly the routes the router has", async () => {
    const t = await createAnalyticsTestApp();
    const router = createAnalyticsRouter({ store: t.analytics, scimTokens: t.scimTokens });
    const documented: string[] = [];
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    for (const [path, item] of Object.entries(paths)) {
      for (const method of Object.keys(item)) documented.push(`${method.toUpperCase()} ${path.replace(/\{([A-Za-z]+)\}/g, ":$1")}`);
    }
    expect(routesOf(router)).toEqual(documented.sort());
    expect(documented).toHaveLength(analyticsOperations.length);
  });

  it("covers every operation of spec §4.6", () => {
    const documented = new Set(analyticsOperations.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`));
    const spec = [
      "GET /organizations",
      "POST /organizations",
      "PATCH /organizations/{id}",
      "DELETE /organizations/{id}",
      "GET /admin-users",
      "GET /admin-users/{id}",
      "POST /admin-users/invite",
      "PATCH /admin-users/{id}",
      "DELETE /admin-users/{id}",
      "GET /users",
      "GET /campaigns",
      "GET /campaigns/{id}/summary",
      "GET /campaigns/{id}/users",
      "GET /campaigns/{id}/users/{userId}",
      "GET /campaigns/{id}/users/bulk-report",
      "GET /campaigns/{id}/feedback-comments",
      "GET /attack-simulations/{id}/summary",
      "GET /attack-simulations/{id}/users",
      "GET /attack-simulations/{id}/users/{userId}",
      "GET /attack-simulations/{id}/users/bulk-report",
      "GET /attack-simulations/{id}/feedback-comments",
      "GET /operations/{id}",
    ];
    expect(spec.filter((operation) => !documented.has(operation))).toEqual([]);
  });

  it("answers every documented path and method with something other than an unknown endpoint", async () => {
    const t = await createAnalyticsTestApp();
    const id = "01890a5d-ac96-774b-bcce-b302099a8057";
    for (const operation of analyticsOperations) {
      const path = operation.path.replace("{id}", id).replace("{userId}", "someone");
      const body = "body" in operation ? {} : undefined;
      const response = await t.send(operation.method.toUpperCase(), path, body === undefined ? {} : { body });
      const type = (response.body as Json)["type"];
      expect(type, `${operation.method} ${operation.path}`).not.toBe("https://scimkit.dev/problems/unknown-endpoint");
      expect(type, `${operation.method} ${operation.path}`).not.toBe("https://scimkit.dev/problems/method-not-allowed");
      expect(response.status, `${operation.method} ${operation.path}`).toBeLessThan(500);
    }
  });

  it("is served without a key and names the server it was fetched from", async () => {
    const t = await createAnalyticsTestApp();
    const response = await t.get("/openapi.json", null);
    expect(response.status).toBe(200);
    const document = response.body as { servers: { url: string }[]; paths: Json; components: { securitySchemes: Json } };
    expect(document.servers).toEqual([{ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/analytics\/v1$/) as unknown }]);
    expect(Object.keys(document.paths)).toContain("/invitations/accept");
    expect(document.components.securitySchemes).toHaveProperty("apiKey");
  });

  it("documents each problem type a test met for each operation", async () => {
    const document = openApiDocument() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const organization = document.paths["/organizations/{id}"]?.["patch"]?.responses ?? {};
    // 409: a move that would make a cycle or a chain too deep (issue 17).
    expect(Object.keys(organization).sort()).toEqual(["200", "400", "401", "403", "404", "409", "413", "415", "429", "default"]);
    const accept = document.paths["/invitations/accept"]?.["post"]?.responses ?? {};
    // 409: an invitation offer the admin user with its e-mail cannot take (issue 27).
    expect(Object.keys(accept).sort()).toEqual(["200", "400", "404", "409", "413", "415", "default"]);
  });
});
