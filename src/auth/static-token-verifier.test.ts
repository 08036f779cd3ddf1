import { timingSafeEqual } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { parseOrganizationTokens } from "./parse-organization-tokens.js";
import { staticTokenVerifier } from "./static-token-verifier.js";
import type { VerifyContext } from "./token-verifier.js";

// A pass-through spy: proves every path reaches the same number of constant-time comparisons.
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const request: VerifyContext = { method: "POST", path: "/Users", ip: "203.0.113.7" };

describe("staticTokenVerifier", () => {
  const verifier = staticTokenVerifier({ acme: "acme-token", globex: ["globex-old", "globex-new"] });

  beforeEach(() => {
    vi.mocked(timingSafeEqual).mockClear();
  });

  it("accepts an organization's token on that organization", async () => {
    expect(await verifier.verify("acme-token", "acme", request)).toEqual({ orgId: "acme", tokenId: "static-1" });
  });

  it("accepts each of several tokens and says which matched", async () => {
    expect(await verifier.verify("globex-old", "globex", request)).toEqual({ orgId: "globex", tokenId: "static-1" });
    expect(await verifier.verify("globex-new", "globex", request)).toEqual({ orgId: "globex", tokenId: "static-2" });
  });

  it("answers null for a wrong token", async () => {
    expect(await verifier.verify("acme-token ", "acme", request)).toBeNull();
    expect(await verifier.verify("ACME-TOKEN", "acme", request)).toBeNull();
    expect(await verifier.verify("", "acme", request)).toBeNull();
  });

  it("answers null for another organization's token and for an unknown organization", async () => {
    expect(await verifier.verify("acme-token", "globex", request)).toBeNull();
    expect(await verifier.verify("globex-new", "acme", request)).toBeNull();
    expect(await verifier.verify("acme-token", "initech", request)).toBeNull();
  });

  it("compares against every token of the organization, and against a dummy for an unknown one", async () => {
    const comparisons = async (token: string, orgId: string) => {
      vi.mocked(timingSafeEqual).mockClear();
      await verifier.verify(token, orgId, request);
      return vi.mocked(timingSafeEqual).mock.calls.length;
    };
    expect(await comparisons("acme-token", "acme")).toBe(1);
    expect(await comparisons("globex-old", "acme")).toBe(1);
    expect(await comparisons("unknown", "acme")).toBe(1);
    expect(await comparisons("acme-token", "initech")).toBe(1);
    // The first token matching does not stop the comparison with the second.
    expect(await comparisons("globex-old", "globex")).toBe(2);
    expect(await comparisons("acme-token", "globex")).toBe(2);
  });

  it("treats organization ids as plain names", async () => {
    const odd = staticTokenVerifier(parseOrganizationTokens("__proto__:p-token,constructor:c-token"));
    expect(await odd.verify("p-token", "__proto__", request)).toEqual({ orgId: "__proto__", tokenId: "static-1" });
    expect(await odd.verify("c-token", "constructor", request)).toEqual({ orgId: "constructor", tokenId: "static-1" });
    expect(await odd.verify("p-token", "toString", request)).toBeNull();
    expect(await verifier.verify("acme-token", "hasOwnProperty", request)).toBeNull();
  });

  it("takes the output of parseOrganizationTokens", async () => {
    const fromEnv = staticTokenVerifier(parseOrganizationTokens("org1:token1, org2:token2, org1:token1b"));
    expect(await fromEnv.verify("token1b", "org1", request)).toEqual({ orgId: "org1", tokenId: "static-2" });
    expect(await fromEnv.verify("token2", "org1", request)).toBeNull();
  });

  it("accepts an empty configuration, which verifies nothing", async () => {
    expect(await staticTokenVerifier({}).verify("anything", "acme", request)).toBeNull();
  });
});

describe("staticTokenVerifier: configuration errors", () => {
  it("rejects an empty or blank token, naming the organization", () => {
    expect(() => staticTokenVerifier({ acme: "" })).toThrow('token 1 of organization "acme" is empty');
    expect(() => staticTokenVerifier({ acme: ["ok", "  "] })).toThrow('token 2 of organization "acme" is empty');
  });

  it("rejects an organization with no token", () => {
    expect(() => staticTokenVerifier({ acme: [] })).toThrow('organization "acme" has no token');
  });

  it("rejects one token shared by two organizations", () => {
    expect(() => staticTokenVerifier({ acme: "same", globex: ["other", "same"] })).toThrow(
      'organizations "acme" and "globex" share a token',
    );
  });

  it("allows a token repeated within one organization", async () => {
    const verifier = staticTokenVerifier({ acme: ["same", "same"] });
    expect(await verifier.verify("same", "acme", request)).not.toBeNull();
  });
});
