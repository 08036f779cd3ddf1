import { describe, expect, it } from "vitest";
import { createTokenStore, hashToken } from "scimkit";
import { memoryStore } from "scimkit/memory";
import type { AnalyticsStore } from "./analytics-store.js";
import { API_KEY_PREFIX, ensureOperatorKey, issueApiKey, verifyApiKey } from "./api-keys.js";
import { memoryAnalyticsStore } from "./memory/memory-analytics-store.js";

function store(): AnalyticsStore {
  return memoryAnalyticsStore({ resources: memoryStore(), tokens: createTokenStore() });
}

const NOW = new Date("2026-03-01T09:00:00.000Z");

async function activeAdmin(analytics: AnalyticsStore): Promise<string> {
  const at = NOW.toISOString();
  const id = "01890a5d-ac96-774b-bcce-b302099a8057";
  await analytics.createAdminUser(
    {
      id,
      email: "a@example.com",
      role: "viewer",
      organizationIds: [],
      status: "invited",
      invitedAt: at,
      invitationExpiresAt: "2026-03-08T09:00:00.000Z",
      updatedAt: at,
    },
    { codeHash: hashToken("code"), expiresAt: "2026-03-08T09:00:00.000Z" },
  );
  await analytics.acceptInvitation(hashToken("code"), at, {
    id: "k1",
    subject: { kind: "admin", adminUserId: id },
    hash: hashToken("admin key"),
    createdAt: at,
  });
  return id;
}

describe("issueApiKey", () => {
  it("issues a 256-bit key with the prefix, storing only its digest", async () => {
    const analytics = store();
    const { key, record } = await issueApiKey(analytics, { kind: "operator" }, NOW);
    expect(key).toMatch(new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{43}$`));
    expect(record).toEqual({ id: record.id, subject: { kind: "operator" }, hash: hashToken(key), createdAt: NOW.toISOString() });
    expect(JSON.stringify(await analytics.findApiKeyByHash(record.hash))).not.toContain(key);
    expect(await analytics.hasOperatorKey()).toBe(true);
  });
});

describe("verifyApiKey", () => {
  it("answers the operator for an operator key, and undefined for anything else", async () => {
    const analytics = store();
    const { key, record } = await issueApiKey(analytics, { kind: "operator" });
    expect(await verifyApiKey(analytics, key)).toEqual({ kind: "operator", keyId: record.id });
    expect(await verifyApiKey(analytics, `${key}x`)).toBeUndefined();
    expect(await verifyApiKey(analytics, "")).toBeUndefined();
  });

  it("answers the admin user for its key only while it is active", async () => {
    const analytics = store();
    const id = await activeAdmin(analytics);
    expect(await verifyApiKey(analytics, "admin key")).toMatchObject({ kind: "admin", keyId: "k1", adminUser: { id, status: "active" } });
    await analytics.updateAdminUser({ all: true }, id, { status: "disabled", updatedAt: NOW.toISOString() });
    expect(await verifyApiKey(analytics, "admin key")).toBeUndefined();
  });
});

describe("ensureOperatorKey", () => {
  const configured = "a-configured-operator-key-of-enough-length";

  it("registers a configured key once, and it verifies as the operator", async () => {
    const analytics = store();
    const first = await ensureOperatorKey(analytics, configured, NOW);
    const second = await ensureOperatorKey(analytics, configured);
    expect(second).toEqual(first);
    expect(await verifyApiKey(analytics, configured)).toEqual({ kind: "operator", keyId: first.id });
  });

  it("refuses short or spaced keys, and an admin user's key", async () => {
    const analytics = store();
    await expect(ensureOperatorKey(analytics, "short")).rejects.toThrow(/at least 32/);
    await expect(ensureOperatorKey(analytics, `${configured} with space`)).rejects.toThrow(/whitespace/);
    await analytics.insertApiKey({
      id: "k2",
      subject: { kind: "admin", adminUserId: "01890a5d-ac96-774b-bcce-b302099a8057" },
      hash: hashToken(configured),
      createdAt: NOW.toISOString(),
    });
    await expect(ensureOperatorKey(analytics, configured)).rejects.toThrow(/admin user/);
  });
});
