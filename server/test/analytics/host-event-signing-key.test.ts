/**
 * The host's wiring of the signing-key operations (issue 20): `createHostApp({ securityEvents })`
 * gives the analytics router the keys its delivery signs with, so the key the operator API shows
 * and rotates is the one whose JWKS the host serves to receivers, and, with `publicUrl`, the JWKS
 * URL it shows is the public one rather than the Host header's.
 */
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { issueApiKey } from "../../src/analytics/api-keys.js";
import { memoryAnalyticsStore } from "../../src/analytics/memory/memory-analytics-store.js";
import { createTokenStore } from "../../../src/auth/hashed-token-store.js";
import { hostEventDelivery } from "../../src/host/host-event-delivery.js";
import { createHostApp, stopHostApp } from "../../src/host/host-server.js";
import { memoryStore } from "../../../src/store/memory/memory-store.js";

const PUBLIC_URL = "https://scim.example.com";

describe("the host's signing-key operations", () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it("show and rotate the key whose JWKS the host serves, at the public JWKS URL", async () => {
    const store = memoryStore();
    const tokens = createTokenStore();
    const analytics = memoryAnalyticsStore({ resources: store, tokens });
    const events = hostEventDelivery(store, { publicUrl: PUBLIC_URL, onError: (error) => expect.fail(String(error)) });
    const app = createHostApp({
      store,
      auth: tokens,
      analytics: { store: analytics, scimTokens: tokens },
      securityEvents: { delivery: events.delivery, keys: events.keys, pollUrl: events.pollUrl },
      publicUrl: PUBLIC_URL,
      consoleDir: false,
      limits: { rateLimit: false },
      log: () => {},
    });
    stops.push(() => stopHostApp(app));
    const { key } = await issueApiKey(analytics, { kind: "operator" });
    const operator = (test: request.Test): request.Test => test.set("Authorization", `Bearer ${key}`);

    const created = await operator(request(app).post("/analytics/v1/organizations")).send({ name: "Acme", id: "acme" });
    expect(created.status, created.text).toBe(201);
    const jwksUrl = `${PUBLIC_URL}/scim/Organizations/acme/events/jwks.json`;

    const before = await operator(request(app).get("/analytics/v1/organizations/acme/event-signing-key"));
    expect(before.status, before.text).toBe(200);
    expect(before.body).toMatchObject({ jwksUrl, kid: (await events.keys.signingKey("acme")).kid });
    const served = await request(app).get("/scim/Organizations/acme/events/jwks.json");
    expect(served.status).toBe(200);
    expect(served.body).toEqual(before.body.jwks);

    const rotated = await operator(request(app).post("/analytics/v1/organizations/acme/event-signing-key/rotate"));
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toEqual({ kid: (await events.keys.signingKey("acme")).kid, jwksUrl });
    expect(rotated.body.kid).not.toBe(before.body.kid);
    const after = await request(app).get("/scim/Organizations/acme/events/jwks.json");
    expect((after.body as { keys: { kid: string }[] }).keys.map((jwk) => jwk.kid)).toEqual([rotated.body.kid, before.body.kid]);
  });
});
