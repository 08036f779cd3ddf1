/**
 * Setup links through the operator API (issue 31, points 1–2's interface): an admin of the
 * organization (or the operator) makes a one-time, expiring link; its code, exchanged once, opens
 * that organization's setup and nothing else — not another organization, not an operator
 * operation; the identity provider chosen sets the compatibility profile; the token is revealed
 * once and works; the page reads the identity provider's requests; a used, expired or revoked link
 * is 410 saying which; and creation, use and revocation are in the audit trail.
 */
import { memoryRequestLog } from "scimkit/request-log";
import { describe, expect, it } from "vitest";
import { memoryAuditTrail } from "../../../src/audit/memory-audit-trail.js";
import { expectProblem, POPULATED, scimUser, type AnalyticsTestApp, type Json } from "./analytics-harness.js";
import { createWorld } from "./analytics-world.js";

/** The code in a link's URL (after `#code=`). */
function codeOf(url: string): string {
  return decodeURIComponent(new URL(url).hash.replace(/^#code=/, ""));
}

async function createLink(t: AnalyticsTestApp, orgId: string, body: Json = {}, key?: string): Promise<{ link: Json; code: string }> {
  const response = await t.post(`/organizations/${orgId}/setup-links`, body, key);
  expect(response.status, response.text).toBe(201);
  expect(response.headers["cache-control"]).toBe("no-store");
  const created = response.body as { link: Json; url: string };
  expect(created.url).toMatch(/\/console\/setup#code=scimkit_link_/);
  return { link: created.link, code: codeOf(created.url) };
}

async function open(t: AnalyticsTestApp, code: string): Promise<{ status: number; body: Json }> {
  const response = await t.send("POST", "/setup/session", { key: null, body: { code } });
  return { status: response.status, body: response.body as Json };
}

describe("setup links", POPULATED, () => {
  it("open one organization's setup once: provider, profile, a token shown once, its requests", async () => {
    const requestLog = memoryRequestLog({ capacity: 100 });
    const audit = memoryAuditTrail();
    const w = await createWorld({ router: { requestLog, onAudit: audit } });
    const { t, orgA, orgB } = w;
    // An admin of the organization may make one; a viewer may not, nor an admin of another.
    expectProblem(await t.post(`/organizations/${orgA.id}/setup-links`, {}, w.keys.viewerA), 403, "forbidden");
    expectProblem(await t.post(`/organizations/${orgA.id}/setup-links`, {}, w.keys.adminB), 404, "not-found");
    const { link, code } = await createLink(t, orgA.id, { identityProvider: "okta", expiresInMinutes: 60 }, w.keys.adminA);
    expect(link).toMatchObject({ orgId: orgA.id, identityProvider: "okta", expiresAt: "2026-03-01T10:00:00.000Z" });
    expect(JSON.stringify((await t.get(`/organizations/${orgA.id}/setup-links`)).body)).not.toContain(code);

    // The code opens the setup without any key, once.
    const opened = await open(t, code);
    expect(opened.status).toBe(201);
    expect(opened.body["organization"]).toEqual({ id: orgA.id, name: "Acme" });
    const session = String(opened.body["session"]);
    const again = await open(t, code);
    expect(again.status).toBe(410);
    expect(String(again.body["detail"])).toContain("opened already");

    // It opens this organization's setup and nothing else.
    const setup = await t.get("/setup", session);
    expect(setup.status).toBe(200);
    expect(setup.body).toMatchObject({ organization: { id: orgA.id }, identityProvider: "okta", tokenRevealed: false });
    expect(String((setup.body as Json)["scimBaseUrl"])).toMatch(new RegExp(`/scim/Organizations/${orgA.id}/v2$`));
    for (const path of [`/organizations/${orgA.id}`, `/organizations/${orgB.id}/setup-links`, "/organizations", "/regions"]) {
      expectProblem(await t.get(path, session), 403, "forbidden");
    }
    // And the setup is the link's alone: an API key has none.
    expectProblem(await t.get("/setup"), 403, "forbidden");

    // Choosing the identity provider gives the organization its profile.
    const chosen = await t.post("/setup/identity-provider", { identityProvider: "entra" }, session);
    expect(chosen.status, chosen.text).toBe(200);
    expect(((await t.get(`/organizations/${orgA.id}`)).body as Json)["compatibility"]).toBe("entra");

    // The token is shown once, and provisions.
    const revealed = await t.post("/setup/token", undefined, session);
    expect(revealed.status, revealed.text).toBe(201);
    expect(revealed.headers["cache-control"]).toBe("no-store");
    const token = String((revealed.body as Json)["token"]);
    expectProblem(await t.post("/setup/token", undefined, session), 409, "conflict");
    expect(((await t.get("/setup", session)).body as Json)["tokenRevealed"]).toBe(true);
    const created = await t.send("POST", `/scim/Organizations/${orgA.id}/v2/Users`, {
      key: token,
      body: scimUser("setup.first@acme.example"),
      contentType: "application/scim+json",
    });
    expect(created.status, created.text).toBe(201);

    // The page reads what the identity provider sent.
    const requests = await t.get("/setup/requests?limit=5", session);
    expect(requests.status).toBe(200);
    expect((requests.body as { data: Json[] }).data[0]).toMatchObject({ method: "POST", status: 201 });

    // Health, on the page and for the organization's admins: the failure counted and listed.
    const missing = await t.send("GET", `/scim/Organizations/${orgA.id}/v2/Users/00000000-0000-0000-0000-000000000000`, { key: token });
    expect(missing.status).toBe(404);
    const health = await t.get("/setup/health", session);
    expect(health.status, health.text).toBe(200);
    // Every request the organization's identity provider sent is in it (the world's own provisioning too); one failed.
    const logged = ((await t.get(`/organizations/${orgA.id}/request-log?limit=100`)).body as { data: Json[] }).data.length;
    expect(health.body).toMatchObject({
      day: { requests: logged, failures: 1, errorRate: 1 / logged },
      week: { requests: logged, failures: 1 },
      topErrors: [{ status: 404, count: 1 }],
      complete: true,
    });
    expect((health.body as Json)["lastSuccessAt"]).toBeDefined();
    expect((health.body as Json)["tokenLastUsedAt"]).toBeDefined();
    const adminHealth = await t.get(`/organizations/${orgA.id}/health`, w.keys.viewerA);
    expect(adminHealth.body).toEqual(health.body);
    expectProblem(await t.get(`/organizations/${orgA.id}/health`, w.keys.adminB), 404, "not-found");

    // Rotation without downtime: both secrets work until the customer confirms, then only the new one.
    const scim = (secret: string) => t.send("GET", `/scim/Organizations/${orgA.id}/v2/Users`, { key: secret });
    const rotated = await t.post("/setup/token/rotate", undefined, session);
    expect(rotated.status, rotated.text).toBe(200);
    const newToken = String((rotated.body as Json)["token"]);
    expect((rotated.body as Json)["previousSecretValidUntil"]).toBe("2026-03-08T09:00:00.000Z");
    expect((await scim(token)).status).toBe(200);
    // Until the identity provider uses the new secret, the page says so.
    expect(((await t.get("/setup", session)).body as { token: Json }).token["lastUsedAt"]).toBeUndefined();
    expect((await scim(newToken)).status).toBe(200);
    const inUse = (await t.get("/setup", session)).body as { token: Json };
    expect(inUse.token["lastUsedAt"]).toBeDefined();
    expect(inUse.token["previousSecretValidUntil"]).toBe("2026-03-08T09:00:00.000Z");
    const confirmed = await t.post("/setup/token/confirm", undefined, session);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((confirmed.body as { token: Json }).token["previousSecretValidUntil"]).toBeUndefined();
    expect((await scim(token)).status).toBe(401);
    expect((await scim(newToken)).status).toBe(200);

    // Revoked, the session ends at its next request.
    const revoked = await t.delete(`/organizations/${orgA.id}/setup-links/${String(link["id"])}`, w.keys.adminA);
    expect(revoked.status).toBe(200);
    expect((revoked.body as Json)["revokedAt"]).toBeDefined();
    expectProblem(await t.get("/setup", session), 401, "unauthorized");

    // Each step is in the organization's audit trail.
    const operations = (await audit.list(orgA.id, { limit: 50 })).map((entry) => entry.operation);
    for (const operation of [
      "analytics.createSetupLink",
      "analytics.openSetup",
      "analytics.chooseSetupIdentityProvider",
      "analytics.revealSetupToken",
      "analytics.rotateSetupToken",
      "analytics.confirmSetupTokenRotation",
      "analytics.revokeSetupLink",
    ]) {
      expect(operations, operation).toContain(operation);
    }
  });

  it("an expired, revoked or unknown link opens nothing, and says why", async () => {
    const w = await createWorld();
    const { t, orgA } = w;
    const expiring = await createLink(t, orgA.id, { expiresInMinutes: 5 });
    const revoked = await createLink(t, orgA.id);
    expect((await t.delete(`/organizations/${orgA.id}/setup-links/${String(revoked.link["id"])}`)).status).toBe(200);
    t.clock.advance(5 * 60_000);
    for (const [code, words] of [
      [expiring.code, "expired"],
      [revoked.code, "revoked"],
    ] as const) {
      const answer = await open(t, code);
      expect(answer.status, words).toBe(410);
      expect(answer.body["type"]).toBe("https://scimkit.dev/problems/setup-link-gone");
      expect(String(answer.body["detail"])).toContain(words);
    }
    expect((await open(t, "scimkit_link_made-up")).status).toBe(404);
    // Bounds: no link of a minute, nor of a month.
    expectProblem(await t.post(`/organizations/${orgA.id}/setup-links`, { expiresInMinutes: 1 }), 400, "invalid-request");
    expectProblem(await t.post(`/organizations/${orgA.id}/setup-links`, { expiresInMinutes: 43_200 }), 400, "invalid-request");
  });

  it("a session ends when its link expires", async () => {
    const w = await createWorld();
    const { t, orgA } = w;
    const { code } = await createLink(t, orgA.id, { expiresInMinutes: 30 });
    const session = String((await open(t, code)).body["session"]);
    expect((await t.get("/setup", session)).status).toBe(200);
    t.clock.advance(30 * 60_000);
    expectProblem(await t.get("/setup", session), 401, "unauthorized");
  });
});
