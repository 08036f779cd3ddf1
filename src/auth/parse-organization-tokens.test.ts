import { describe, expect, it } from "vitest";
import { parseOrganizationTokens } from "./parse-organization-tokens.js";

describe("parseOrganizationTokens", () => {
  it("reads comma-separated orgId:token entries", () => {
    expect(parseOrganizationTokens("org1:token1,org2:token2")).toEqual({ org1: ["token1"], org2: ["token2"] });
  });

  it("ignores whitespace around entries and around the first colon", () => {
    expect(parseOrganizationTokens("  org1 : token1 ,\n\torg2:token2\n")).toEqual({ org1: ["token1"], org2: ["token2"] });
  });

  it("gives an organization several tokens when it is repeated, in order, each once", () => {
    expect(parseOrganizationTokens("acme:old,globex:g,acme:new,acme:old")).toEqual({
      acme: ["old", "new"],
      globex: ["g"],
    });
  });

  it("keeps everything after the first colon as the token", () => {
    expect(parseOrganizationTokens("acme:a:b::c=,globex:scimkit_Ab-_9+/=")).toEqual({
      acme: ["a:b::c="],
      globex: ["scimkit_Ab-_9+/="],
    });
  });

  it("accepts letters, digits, '-', '_' and '.' in organization ids", () => {
    expect(Object.keys(parseOrganizationTokens("Acme-Corp_2.eu:t"))).toEqual(["Acme-Corp_2.eu"]);
  });

  it("reads blank text as no organizations", () => {
    expect(parseOrganizationTokens("")).toEqual({});
    expect(parseOrganizationTokens("  \n ")).toEqual({});
  });

  it("keeps an organization named __proto__ as an own key", () => {
    const parsed = parseOrganizationTokens("__proto__:t");
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, "__proto__")).toBe(true);
    // biome-ignore lint/suspicious/noProto: the test is that "__proto__" is read as an organization id, not the prototype.
    expect(parsed["__proto__"]).toEqual(["t"]);
  });
});

describe("parseOrganizationTokens: errors name the entry and the problem", () => {
  const cases: ReadonlyArray<readonly [text: string, message: string]> = [
    ["org1:t1,,org2:t2", "entry 2 of 3 is empty"],
    ["org1:t1,", "entry 2 of 2 is empty"],
    [",org1:t1", "entry 1 of 2 is empty"],
    ["org1:t1,org2token2", 'entry 2 of 2 has no ":"'],
    [":t1", "entry 1 of 1 has an empty organization id"],
    ["  : t1", "entry 1 of 1 has an empty organization id"],
    ["org 1:t1", "entry 1 of 1 has an organization id with characters other than"],
    ["org/1:t1", "entry 1 of 1 has an organization id with characters other than"],
    ["org1:t1,org2:", 'entry 2 of 2 (organization "org2") has an empty token'],
    ["org2:   ", 'entry 1 of 1 (organization "org2") has an empty token'],
    ["org1:tok en1", 'entry 1 of 1 (organization "org1") has whitespace inside its token'],
  ];

  it.each(cases)("%j → %s", (text, message) => {
    expect(() => parseOrganizationTokens(text)).toThrow(message);
  });

  it("never quotes a token in a message", () => {
    const secrets = ["s3cretValue", "tok en1"];
    for (const text of ["org1s3cretValue", "a:b,org1s3cretValue", "org1:tok en1", "bad org:s3cretValue"]) {
      let message = "";
      try {
        parseOrganizationTokens(text);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toBe("");
      for (const secret of secrets) expect(message).not.toContain(secret);
    }
  });
});
