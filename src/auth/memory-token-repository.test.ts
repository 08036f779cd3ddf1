import { describe, expect, it } from "vitest";
import { hashToken } from "./hash-token.js";
import { memoryTokenRepository } from "./memory-token-repository.js";
import type { StoredToken } from "./token-repository.js";

function stored(id: string, orgId: string, token: string, extra: Partial<StoredToken> = {}): StoredToken {
  return { id, orgId, prefix: token.slice(0, 4), createdAt: "2025-01-01T00:00:00.000Z", hash: hashToken(token), ...extra };
}

describe("memoryTokenRepository", () => {
  it("finds a token by digest within its organization only", async () => {
    const repository = memoryTokenRepository();
    await repository.insert(stored("t1", "acme", "secret-1"));
    expect((await repository.findByHash("acme", hashToken("secret-1")))?.id).toBe("t1");
    expect(await repository.findByHash("globex", hashToken("secret-1"))).toBeUndefined();
    expect(await repository.findByHash("acme", hashToken("secret-2"))).toBeUndefined();
  });

  it("lists an organization's tokens in insertion order", async () => {
    const repository = memoryTokenRepository();
    await repository.insert(stored("t1", "acme", "s1"));
    await repository.insert(stored("t2", "globex", "s2"));
    await repository.insert(stored("t3", "acme", "s3"));
    expect((await repository.listByOrg("acme")).map((token) => token.id)).toEqual(["t1", "t3"]);
    expect(await repository.listByOrg("nobody")).toEqual([]);
  });

  it("rejects a duplicate digest anywhere and a duplicate id within an organization", async () => {
    const repository = memoryTokenRepository();
    await repository.insert(stored("t1", "acme", "s1"));
    await expect(repository.insert(stored("t2", "globex", "s1"))).rejects.toThrow(/hash already exists/);
    await expect(repository.insert(stored("t1", "acme", "s2"))).rejects.toThrow(/"t1" already exists/);
    await repository.insert(stored("t1", "globex", "s3"));
    expect(await repository.listByOrg("globex")).toHaveLength(1);
  });

  it("keeps what it was given out of the caller's reach", async () => {
    const repository = memoryTokenRepository();
    const original = { ...stored("t1", "acme", "s1") };
    await repository.insert(original);
    (original as { label?: string }).label = "changed afterwards";
    const found = await repository.findByHash("acme", hashToken("s1"));
    expect(found?.label).toBeUndefined();
    expect(Object.isFrozen(found)).toBe(true);
  });

  it("replaceHash swaps the digest, sets rotatedAt, clears lastUsedAt and keeps the rest", async () => {
    const repository = memoryTokenRepository();
    await repository.insert(stored("t1", "acme", "old", { label: "Okta", lastUsedAt: "2025-01-02T00:00:00.000Z" }));
    const next = await repository.replaceHash("acme", "t1", {
      hash: hashToken("new"),
      prefix: "new",
      rotatedAt: "2025-01-03T00:00:00.000Z",
    });
    expect(next).toEqual({
      id: "t1",
      orgId: "acme",
      label: "Okta",
      prefix: "new",
      createdAt: "2025-01-01T00:00:00.000Z",
      rotatedAt: "2025-01-03T00:00:00.000Z",
      hash: hashToken("new"),
    });
    expect(await repository.findByHash("acme", hashToken("old"))).toBeUndefined();
    expect((await repository.findByHash("acme", hashToken("new")))?.id).toBe("t1");
    expect(await repository.listByOrg("acme")).toHaveLength(1);
  });

  it("replaceHash is undefined for a token of another organization or none", async () => {
    const repository = memoryTokenRepository();
    await repository.insert(stored("t1", "acme", "old"));
    const replacement = { hash: hashToken("new"), prefix: "new", rotatedAt: "2025-01-03T00:00:00.000Z" };
    expect(await repository.replaceHash("globex", "t1", replacement)).toBeUndefined();
    expect(await repository.replaceHash("acme", "t9", replacement)).toBeUndefined();
    expect((await repository.findByHash("acme", hashToken("old")))?.id).toBe("t1");
  });

  it("markUsed records the time on the token with that digest only", async () => {
    const repository = memoryTokenRepository();
    await repository.insert(stored("t1", "acme", "s1"));
    await repository.markUsed("acme", hashToken("s1"), "2025-01-05T00:00:00.000Z");
    await repository.markUsed("globex", hashToken("s1"), "2025-01-06T00:00:00.000Z");
    await repository.markUsed("acme", hashToken("rotated-away"), "2025-01-07T00:00:00.000Z");
    expect((await repository.findByHash("acme", hashToken("s1")))?.lastUsedAt).toBe("2025-01-05T00:00:00.000Z");
    expect(await repository.listByOrg("acme")).toHaveLength(1);
  });

  it("deletes one token or all of an organization's", async () => {
    const repository = memoryTokenRepository();
    await repository.insert(stored("t1", "acme", "s1"));
    await repository.insert(stored("t2", "acme", "s2"));
    await repository.insert(stored("t3", "globex", "s3"));
    expect(await repository.delete("globex", "t1")).toBe(false);
    expect(await repository.delete("acme", "t1")).toBe(true);
    expect(await repository.delete("acme", "t1")).toBe(false);
    expect(await repository.findByHash("acme", hashToken("s1"))).toBeUndefined();
    expect(await repository.deleteByOrg("acme")).toBe(1);
    expect(await repository.deleteByOrg("acme")).toBe(0);
    expect(await repository.findByHash("acme", hashToken("s2"))).toBeUndefined();
    expect((await repository.findByHash("globex", hashToken("s3")))?.id).toBe("t3");
  });
});

describe("memoryTokenRepository: expiry and previous digests", () => {
  it("finds a token by its previous digest after a rotation with grace, and forgets it after one without", async () => {
    const repository = memoryTokenRepository();
    await repository.insert(stored("t1", "acme", "old", { expiresAt: "2025-02-01T00:00:00.000Z" }));
    const next = await repository.replaceHash("acme", "t1", {
      hash: hashToken("new"),
      prefix: "new",
      rotatedAt: "2025-01-03T00:00:00.000Z",
      previousSecretValidUntil: "2025-01-03T00:01:00.000Z",
    });
    expect(next?.previousHash).toBe(hashToken("old"));
    expect(next?.expiresAt).toBeUndefined();
    expect((await repository.findByHash("acme", hashToken("old")))?.id).toBe("t1");
    expect(await repository.findByHash("globex", hashToken("old"))).toBeUndefined();
    // markUsed with the previous digest records nothing: lastUsedAt is the current secret's.
    await repository.markUsed("acme", hashToken("old"), "2025-01-03T00:00:30.000Z");
    expect((await repository.findByHash("acme", hashToken("new")))?.lastUsedAt).toBeUndefined();
    await repository.replaceHash("acme", "t1", {
      hash: hashToken("newer"),
      prefix: "nwr",
      rotatedAt: "2025-01-04T00:00:00.000Z",
      expiresAt: "2025-03-01T00:00:00.000Z",
    });
    expect(await repository.findByHash("acme", hashToken("old"))).toBeUndefined();
    expect(await repository.findByHash("acme", hashToken("new"))).toBeUndefined();
    expect((await repository.findByHash("acme", hashToken("newer")))?.expiresAt).toBe("2025-03-01T00:00:00.000Z");
  });

  it("delete and deleteByOrg forget previous digests too", async () => {
    const repository = memoryTokenRepository();
    await repository.insert(stored("t1", "acme", "a"));
    await repository.replaceHash("acme", "t1", {
      hash: hashToken("b"),
      prefix: "b",
      rotatedAt: "2025-01-03T00:00:00.000Z",
      previousSecretValidUntil: "2025-01-04T00:00:00.000Z",
    });
    expect(await repository.delete("acme", "t1")).toBe(true);
    expect(await repository.findByHash("acme", hashToken("a"))).toBeUndefined();
    await repository.insert(stored("t2", "acme", "a"));
    expect((await repository.findByHash("acme", hashToken("a")))?.id).toBe("t2");
  });
});
