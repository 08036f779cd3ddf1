import { timingSafeEqual } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { hashToken, secretIdOf } from "./hash-token.js";
import { createTokenStore, type TokenStoreOptions } from "./hashed-token-store.js";
import { memoryTokenRepository } from "./memory-token-repository.js";
import type { StoredToken, TokenRepository } from "./token-repository.js";
import type { VerifyContext } from "./token-verifier.js";

// A pass-through spy: proves unknown and foreign tokens reach the constant-time comparison.
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const request: VerifyContext = { method: "GET", path: "/Users" };
const TOKEN_FORMAT = /^scimkit_[A-Za-z0-9_-]{43}$/;

/** A settable clock starting at 2025-03-01T10:00:00Z. */
function clock(): { readonly now: () => Date; advance(ms: number): void } {
  let time = Date.parse("2025-03-01T10:00:00.000Z");
  return { now: () => new Date(time), advance: (ms) => void (time += ms) };
}

type Call = readonly [method: keyof TokenRepository, ...args: readonly unknown[]];

/** The memory repository, recording every call made to it. */
function recordingRepository(): { readonly repository: TokenRepository; readonly inner: TokenRepository; readonly calls: Call[] } {
  const inner = memoryTokenRepository();
  const calls: Call[] = [];
  const repository: TokenRepository = {
    findByHash: (orgId, hash) => (calls.push(["findByHash", orgId, hash]), inner.findByHash(orgId, hash)),
    listByOrg: (orgId) => (calls.push(["listByOrg", orgId]), inner.listByOrg(orgId)),
    insert: (token) => (calls.push(["insert", token]), inner.insert(token)),
    replaceHash: (orgId, id, replacement) => (calls.push(["replaceHash", orgId, id]), inner.replaceHash(orgId, id, replacement)),
    markUsed: (orgId, hash, at) => (calls.push(["markUsed", orgId, hash, at]), inner.markUsed(orgId, hash, at)),
    dropPreviousHash: (orgId, id) => (
      calls.push(["dropPreviousHash", orgId, id]), inner.dropPreviousHash?.(orgId, id) ?? Promise.resolve(undefined)
    ),
    delete: (orgId, id) => (calls.push(["delete", orgId, id]), inner.delete(orgId, id)),
    deleteByOrg: (orgId) => (calls.push(["deleteByOrg", orgId]), inner.deleteByOrg(orgId)),
  };
  return { repository, inner, calls };
}

function setup(options: TokenStoreOptions = {}) {
  const time = clock();
  const recorded = recordingRepository();
  const tokens = createTokenStore({ repository: recorded.repository, now: time.now, ...options });
  return { tokens, time, ...recorded };
}

describe("createTokenStore: issue and verify", () => {
  it("issues a prefixed 256-bit base64url token and a record without the secret", async () => {
    const { tokens } = setup();
    const { token, record } = await tokens.issue("acme", { label: "Entra" });
    expect(token).toMatch(TOKEN_FORMAT);
    expect(Buffer.from(token.slice("scimkit_".length), "base64url")).toHaveLength(32);
    expect(record).toEqual({
      id: expect.any(String),
      orgId: "acme",
      label: "Entra",
      prefix: token.slice(0, "scimkit_".length + 4),
      secretId: secretIdOf(hashToken(token)),
      createdAt: "2025-03-01T10:00:00.000Z",
    });
    expect(Object.keys(record)).not.toContain("hash");
  });

  it("issues distinct tokens and ids (1,000 of them)", async () => {
    const { tokens } = setup();
    const issued = await Promise.all(Array.from({ length: 1000 }, () => tokens.issue("acme")));
    expect(new Set(issued.map((entry) => entry.token)).size).toBe(1000);
    expect(new Set(issued.map((entry) => entry.record.id)).size).toBe(1000);
    for (const { token } of issued) expect(token).toMatch(TOKEN_FORMAT);
  });

  it("verifies an issued token on its own organization", async () => {
    const { tokens } = setup();
    const { token, record } = await tokens.issue("acme", { label: "Entra" });
    expect(await tokens.verify(token, "acme", request)).toEqual({ orgId: "acme", tokenId: record.id, label: "Entra" });
  });

  it("leaves label out of the principal when the token has none", async () => {
    const { tokens } = setup();
    const { token, record } = await tokens.issue("acme");
    const principal = await tokens.verify(token, "acme", request);
    expect(principal).toEqual({ orgId: "acme", tokenId: record.id });
    expect(principal).not.toHaveProperty("label");
  });

  it("answers null for tokens nobody issued", async () => {
    const { tokens } = setup();
    const { token } = await tokens.issue("acme");
    expect(await tokens.verify("", "acme", request)).toBeNull();
    expect(await tokens.verify(`scimkit_${"A".repeat(43)}`, "acme", request)).toBeNull();
    expect(await tokens.verify(token.slice(0, -1), "acme", request)).toBeNull();
    expect(await tokens.verify(`${token}x`, "acme", request)).toBeNull();
    expect(await tokens.verify(token.slice("scimkit_".length), "acme", request)).toBeNull();
    expect(await tokens.verify(hashToken(token), "acme", request)).toBeNull();
  });

  it("keeps several tokens of one organization valid side by side", async () => {
    const { tokens } = setup();
    const first = await tokens.issue("acme", { label: "Entra" });
    const second = await tokens.issue("acme", { label: "Okta" });
    expect((await tokens.verify(first.token, "acme", request))?.tokenId).toBe(first.record.id);
    expect((await tokens.verify(second.token, "acme", request))?.tokenId).toBe(second.record.id);
  });

  it("rejects an empty organization id", async () => {
    const { tokens } = setup();
    await expect(tokens.issue("")).rejects.toThrow(/orgId/);
  });
});

describe("createTokenStore: organizations are isolated", () => {
  beforeEach(() => {
    vi.mocked(timingSafeEqual).mockClear();
  });

  it("answers null for another organization's token", async () => {
    const { tokens } = setup();
    const acme = await tokens.issue("acme");
    await tokens.issue("globex");
    expect(await tokens.verify(acme.token, "globex", request)).toBeNull();
    expect(await tokens.verify(acme.token, "nobody", request)).toBeNull();
  });

  it("does the same work for a foreign token as for an unknown one", async () => {
    const { tokens, calls } = setup();
    const acme = await tokens.issue("acme");
    await tokens.issue("globex");
    const unknown = `scimkit_${"B".repeat(43)}`;

    const trace = async (token: string, orgId: string) => {
      calls.length = 0;
      vi.mocked(timingSafeEqual).mockClear();
      const principal = await tokens.verify(token, orgId, request);
      // Digests differ between the two tokens; what must match is the shape of the work.
      const shape = calls.map(([method, org]) => [method, org]);
      return { principal, shape, comparisons: vi.mocked(timingSafeEqual).mock.calls.length };
    };

    const foreign = await trace(acme.token, "globex");
    const nobody = await trace(unknown, "globex");
    const unknownOrg = await trace(acme.token, "initech");
    // Two comparisons each: the current digest and the previous one (a rotation's grace).
    expect(foreign).toEqual({ principal: null, shape: [["findByHash", "globex"]], comparisons: 2 });
    expect(nobody).toEqual(foreign);
    expect(unknownOrg).toEqual({ principal: null, shape: [["findByHash", "initech"]], comparisons: 2 });
  });

  it("does not trust a repository that ignores the organization in findByHash", async () => {
    const inner = memoryTokenRepository();
    const careless: TokenRepository = {
      ...inner,
      async findByHash(_orgId, hash) {
        for (const orgId of ["acme", "globex"]) {
          const found = await inner.findByHash(orgId, hash);
          if (found !== undefined) return found;
        }
        return undefined;
      },
    };
    const tokens = createTokenStore({ repository: careless });
    const acme = await tokens.issue("acme");
    expect(await tokens.verify(acme.token, "globex", request)).toBeNull();
    expect(await tokens.verify(acme.token, "acme", request)).not.toBeNull();
  });

  it("lists, rotates and revokes only within the organization named", async () => {
    const { tokens } = setup();
    const acme = await tokens.issue("acme");
    expect(await tokens.list("globex")).toEqual([]);
    expect(await tokens.rotate("globex", acme.record.id)).toBeUndefined();
    expect(await tokens.revoke("globex", acme.record.id)).toBe(false);
    expect(await tokens.revokeAll("globex")).toBe(0);
    expect(await tokens.verify(acme.token, "acme", request)).not.toBeNull();
  });
});

describe("createTokenStore: secrets are never kept or shown", () => {
  it("stores only the SHA-256 digest", async () => {
    const { tokens, inner } = setup();
    const { token } = await tokens.issue("acme", { label: "Entra" });
    const stored = await inner.listByOrg("acme");
    expect(stored).toHaveLength(1);
    expect(stored[0]?.hash).toBe(hashToken(token));
    const dump = JSON.stringify(stored);
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice("scimkit_".length));
  });

  it("lists records with neither the secret nor its digest", async () => {
    const { tokens } = setup();
    const issued = [await tokens.issue("acme", { label: "Entra" }), await tokens.issue("acme")];
    await tokens.verify(issued[0]!.token, "acme", request);
    const records = await tokens.list("acme");
    expect(records.map((record) => record.id)).toEqual(issued.map((entry) => entry.record.id));
    const dump = JSON.stringify(records);
    for (const { token } of issued) {
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(token.slice("scimkit_".length));
      expect(dump).not.toContain(hashToken(token));
    }
    for (const record of records) expect(Object.keys(record)).not.toContain("hash");
  });

  it("never passes on columns a repository adds to its records", async () => {
    const inner = memoryTokenRepository();
    const withExtras: TokenRepository = {
      ...inner,
      async listByOrg(orgId) {
        return (await inner.listByOrg(orgId)).map((token): StoredToken => ({ ...token, salt: "s", raw: "x" }) as StoredToken);
      },
    };
    const tokens = createTokenStore({ repository: withExtras });
    await tokens.issue("acme", { label: "Entra" });
    const [record] = await tokens.list("acme");
    expect(Object.keys(record ?? {}).sort()).toEqual(["createdAt", "id", "label", "orgId", "prefix", "secretId"]);
  });
});

describe("createTokenStore: rotate", () => {
  it("issues a new secret under the same id; the old one fails on the very next verify", async () => {
    const { tokens, time } = setup();
    const old = await tokens.issue("acme", { label: "Entra" });
    expect(await tokens.verify(old.token, "acme", request)).not.toBeNull();
    time.advance(5_000);

    const rotated = await tokens.rotate("acme", old.record.id);

    expect(rotated).toBeDefined();
    expect(await tokens.verify(old.token, "acme", request)).toBeNull();
    expect(await tokens.verify(rotated!.token, "acme", request)).toEqual({
      orgId: "acme",
      tokenId: old.record.id,
      label: "Entra",
    });
    expect(rotated!.token).toMatch(TOKEN_FORMAT);
    expect(rotated!.token).not.toBe(old.token);
    expect(rotated!.record).toEqual({
      id: old.record.id,
      orgId: "acme",
      label: "Entra",
      prefix: rotated!.token.slice(0, "scimkit_".length + 4),
      secretId: secretIdOf(hashToken(rotated!.token)),
      createdAt: "2025-03-01T10:00:00.000Z",
      rotatedAt: "2025-03-01T10:00:05.000Z",
    });
    expect(rotated!.record.secretId).not.toBe(old.record.secretId);
  });

  it("is undefined for an unknown token id", async () => {
    const { tokens } = setup();
    expect(await tokens.rotate("acme", "no-such-id")).toBeUndefined();
  });

  it("leaves the organization's other tokens alone", async () => {
    const { tokens } = setup();
    const first = await tokens.issue("acme");
    const second = await tokens.issue("acme");
    await tokens.rotate("acme", first.record.id);
    expect(await tokens.verify(second.token, "acme", request)).not.toBeNull();
    expect(await tokens.list("acme")).toHaveLength(2);
  });
});

describe("createTokenStore: revoke and revokeAll", () => {
  it("revoke makes the token fail on the next verify and says whether it existed", async () => {
    const { tokens } = setup();
    const kept = await tokens.issue("acme");
    const revoked = await tokens.issue("acme");
    expect(await tokens.revoke("acme", revoked.record.id)).toBe(true);
    expect(await tokens.verify(revoked.token, "acme", request)).toBeNull();
    expect(await tokens.verify(kept.token, "acme", request)).not.toBeNull();
    expect(await tokens.revoke("acme", revoked.record.id)).toBe(false);
    expect((await tokens.list("acme")).map((record) => record.id)).toEqual([kept.record.id]);
  });

  it("revokeAll removes every token of one organization and counts them", async () => {
    const { tokens } = setup();
    const acme = [await tokens.issue("acme"), await tokens.issue("acme")];
    const globex = await tokens.issue("globex");
    expect(await tokens.revokeAll("acme")).toBe(2);
    for (const { token } of acme) expect(await tokens.verify(token, "acme", request)).toBeNull();
    expect(await tokens.list("acme")).toEqual([]);
    expect(await tokens.verify(globex.token, "globex", request)).not.toBeNull();
    expect(await tokens.revokeAll("acme")).toBe(0);
  });
});

describe("createTokenStore: lastUsedAt", () => {
  it("is absent until the token verifies, then records when", async () => {
    const { tokens, time } = setup();
    const { token, record } = await tokens.issue("acme");
    expect(record.lastUsedAt).toBeUndefined();
    time.advance(1_000);
    await tokens.verify(token, "acme", request);
    expect((await tokens.list("acme"))[0]?.lastUsedAt).toBe("2025-03-01T10:00:01.000Z");
  });

  it("is written at most once per resolution interval", async () => {
    const { tokens, time, calls } = setup({ lastUsedResolutionMs: 60_000 });
    const { token } = await tokens.issue("acme");
    const writes = () => calls.filter(([method]) => method === "markUsed").length;
    await tokens.verify(token, "acme", request);
    time.advance(59_999);
    await tokens.verify(token, "acme", request);
    expect(writes()).toBe(1);
    time.advance(1);
    await tokens.verify(token, "acme", request);
    expect(writes()).toBe(2);
    expect((await tokens.list("acme"))[0]?.lastUsedAt).toBe("2025-03-01T10:01:00.000Z");
  });

  it("is written on every verify with a resolution of 0, and never when tracking is off", async () => {
    const every = setup({ lastUsedResolutionMs: 0 });
    const off = setup({ trackLastUsed: false });
    for (const { tokens, calls, expected } of [
      { ...every, expected: 3 },
      { ...off, expected: 0 },
    ]) {
      const { token } = await tokens.issue("acme");
      for (let i = 0; i < 3; i++) expect(await tokens.verify(token, "acme", request)).not.toBeNull();
      expect(calls.filter(([method]) => method === "markUsed")).toHaveLength(expected);
    }
    expect((await off.tokens.list("acme"))[0]?.lastUsedAt).toBeUndefined();
  });

  it("is not written by failed verifications", async () => {
    const { tokens, calls } = setup();
    const acme = await tokens.issue("acme");
    await tokens.verify(acme.token, "globex", request);
    await tokens.verify("wrong", "acme", request);
    expect(calls.filter(([method]) => method === "markUsed")).toEqual([]);
  });

  it("is cleared by rotation: the new secret has not been used yet", async () => {
    const { tokens } = setup();
    const { token, record } = await tokens.issue("acme");
    await tokens.verify(token, "acme", request);
    const rotated = await tokens.rotate("acme", record.id);
    expect(rotated?.record.lastUsedAt).toBeUndefined();
    expect((await tokens.list("acme"))[0]?.lastUsedAt).toBeUndefined();
  });
});

describe("createTokenStore: options", () => {
  it("uses a custom token prefix", async () => {
    const tokens = createTokenStore({ tokenPrefix: "acme_scim_" });
    const { token, record } = await tokens.issue("acme");
    expect(token).toMatch(/^acme_scim_[A-Za-z0-9_-]{43}$/);
    expect(record.prefix).toBe(token.slice(0, "acme_scim_".length + 4));
    expect(await tokens.verify(token, "acme", request)).not.toBeNull();
  });

  it("rejects a prefix that does not belong in a header, and a negative resolution", () => {
    expect(() => createTokenStore({ tokenPrefix: "bad prefix" })).toThrow(/tokenPrefix/);
    expect(() => createTokenStore({ tokenPrefix: "a,b" })).toThrow(/tokenPrefix/);
    expect(() => createTokenStore({ lastUsedResolutionMs: -1 })).toThrow(/lastUsedResolutionMs/);
    expect(() => createTokenStore({ lastUsedResolutionMs: Number.NaN })).toThrow(/lastUsedResolutionMs/);
  });

  it("defaults to an in-memory repository", async () => {
    const tokens = createTokenStore();
    const { token } = await tokens.issue("acme");
    expect(await tokens.verify(token, "acme", request)).not.toBeNull();
  });
});

describe("createTokenStore: expiry", () => {
  it("verifies until expiresAt and answers null from that instant on (RFC 6750 §3.1)", async () => {
    const { tokens, time } = setup();
    const issued = await tokens.issue("acme", { expiresAt: new Date("2025-03-01T10:00:10.000Z") });
    expect(issued.record.expiresAt).toBe("2025-03-01T10:00:10.000Z");
    time.advance(9_999);
    expect(await tokens.verify(issued.token, "acme", request)).not.toBeNull();
    time.advance(1);
    expect(await tokens.verify(issued.token, "acme", request)).toBeNull();
    expect((await tokens.list("acme"))[0]?.expiresAt).toBe("2025-03-01T10:00:10.000Z");
  });

  it("refuses an expiry that is not a time", async () => {
    const { tokens } = setup();
    await expect(tokens.issue("acme", { expiresAt: "soon" })).rejects.toThrow(/expiresAt/);
    await expect(tokens.issue("acme", { expiresAt: new Date(Number.NaN) })).rejects.toThrow(/expiresAt/);
  });

  it("gives a rotated secret the expiry the rotation names, and none when it names none", async () => {
    const { tokens } = setup();
    const issued = await tokens.issue("acme", { expiresAt: "2025-04-01T00:00:00.000Z" });
    const withExpiry = await tokens.rotate("acme", issued.record.id, { expiresAt: "2025-05-01T00:00:00Z" });
    expect(withExpiry?.record.expiresAt).toBe("2025-05-01T00:00:00.000Z");
    const without = await tokens.rotate("acme", issued.record.id);
    expect(without?.record.expiresAt).toBeUndefined();
  });
});

describe("createTokenStore: rotation grace", () => {
  it("keeps the replaced secret working for graceSeconds, then never again", async () => {
    const { tokens, time } = setup({ lastUsedResolutionMs: 0 });
    const old = await tokens.issue("acme");
    const rotated = await tokens.rotate("acme", old.record.id, { graceSeconds: 30 });
    expect(rotated?.record.previousSecretValidUntil).toBe("2025-03-01T10:00:30.000Z");
    // The replaced secret keeps its id while it verifies, so what it obtained stays valid as long.
    expect(rotated?.record.previousSecretId).toBe(old.record.secretId);
    time.advance(29_999);
    expect(await tokens.verify(old.token, "acme", request)).toEqual({ orgId: "acme", tokenId: old.record.id });
    expect(await tokens.verify(old.token, "globex", request)).toBeNull();
    // The old secret's use is not the new one's.
    expect((await tokens.list("acme"))[0]?.lastUsedAt).toBeUndefined();
    time.advance(1);
    expect(await tokens.verify(old.token, "acme", request)).toBeNull();
    expect(await tokens.verify(rotated!.token, "acme", request)).not.toBeNull();
    // An ended grace period is not listed.
    expect((await tokens.list("acme"))[0]?.previousSecretValidUntil).toBeUndefined();
    expect((await tokens.list("acme"))[0]?.previousSecretId).toBeUndefined();
  });

  it("ends the grace early when the rotation is confirmed: the replaced secret fails at once, the new one goes on", async () => {
    const { tokens } = setup();
    const old = await tokens.issue("acme");
    const rotated = await tokens.rotate("acme", old.record.id, { graceSeconds: 3600 });
    expect(await tokens.verify(old.token, "acme", request)).not.toBeNull();
    const confirmed = await tokens.endRotationGrace?.("acme", old.record.id);
    expect(confirmed?.previousSecretValidUntil).toBeUndefined();
    expect(confirmed?.previousSecretId).toBeUndefined();
    expect(await tokens.verify(old.token, "acme", request)).toBeNull();
    expect(await tokens.verify(rotated!.token, "acme", request)).not.toBeNull();
    // Idempotent, scoped to the organization, undefined for no such token.
    expect((await tokens.endRotationGrace?.("acme", old.record.id))?.id).toBe(old.record.id);
    expect(await tokens.endRotationGrace?.("globex", old.record.id)).toBeUndefined();
    expect(await tokens.endRotationGrace?.("acme", "no-such-id")).toBeUndefined();
    // A repository that cannot end a grace early says so rather than pretending it did.
    const { dropPreviousHash: _drop, ...without } = memoryTokenRepository();
    const limited = createTokenStore({ repository: without });
    const issued = await limited.issue("acme");
    await expect(limited.endRotationGrace?.("acme", issued.record.id)).rejects.toThrow(/cannot end a rotation's grace early/);
  });

  it("never lets the replaced secret outlive its own expiry", async () => {
    const { tokens, time } = setup();
    const old = await tokens.issue("acme", { expiresAt: "2025-03-01T10:00:05.000Z" });
    const rotated = await tokens.rotate("acme", old.record.id, { graceSeconds: 60 });
    expect(rotated?.record.previousSecretValidUntil).toBe("2025-03-01T10:00:05.000Z");
    time.advance(5_000);
    expect(await tokens.verify(old.token, "acme", request)).toBeNull();
  });

  it("keeps one previous secret only: a second rotation ends the first one's grace", async () => {
    const { tokens } = setup();
    const first = await tokens.issue("acme");
    const second = await tokens.rotate("acme", first.record.id, { graceSeconds: 60 });
    const third = await tokens.rotate("acme", first.record.id, { graceSeconds: 60 });
    expect(await tokens.verify(first.token, "acme", request)).toBeNull();
    expect(await tokens.verify(second!.token, "acme", request)).not.toBeNull();
    expect(await tokens.verify(third!.token, "acme", request)).not.toBeNull();
    await tokens.revoke("acme", first.record.id);
    expect(await tokens.verify(second!.token, "acme", request)).toBeNull();
    expect(await tokens.verify(third!.token, "acme", request)).toBeNull();
  });

  it("refuses a grace period that is not a whole number of seconds up to 7 days", async () => {
    const { tokens } = setup();
    const issued = await tokens.issue("acme");
    for (const graceSeconds of [-1, 1.5, 7 * 24 * 3600 + 1, Number.NaN]) {
      await expect(tokens.rotate("acme", issued.record.id, { graceSeconds })).rejects.toThrow(/graceSeconds/);
    }
    expect(await tokens.rotate("acme", issued.record.id, { graceSeconds: 7 * 24 * 3600 })).toBeDefined();
    expect(await tokens.rotate("acme", "no-such-id", { graceSeconds: 60 })).toBeUndefined();
  });

  it("compares both digests whether the current or the previous secret is presented", async () => {
    const { tokens } = setup();
    const old = await tokens.issue("acme");
    const rotated = await tokens.rotate("acme", old.record.id, { graceSeconds: 60 });
    const compare = vi.mocked(timingSafeEqual);
    for (const token of [old.token, rotated!.token, "scimkit_unknown"]) {
      compare.mockClear();
      await tokens.verify(token, "acme", request);
      expect(compare).toHaveBeenCalledTimes(2);
    }
  });
});
