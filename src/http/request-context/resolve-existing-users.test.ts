import type { Request } from "express";
import { describe, expect, it } from "vitest";
import type { ExistingUserPolicy } from "../resource-service/existing-user-policy.js";
import { existingUsersOf, isExistingUsersOption } from "./resolve-existing-users.js";

describe("existingUsersOf", () => {
  const request = {} as Request;

  it("answers a fixed option, or the function's answer for the organization, awaited", async () => {
    expect(await existingUsersOf("link", "acme", request)).toBe("link");
    const perOrg = async (orgId: string): Promise<ExistingUserPolicy> => (orgId === "acme" ? "link" : "conflict");
    expect(await existingUsersOf(perOrg, "acme", request)).toBe("link");
    expect(await existingUsersOf(perOrg, "globex", request)).toBe("conflict");
  });

  it("rejects with a plain Error when the host's function answers something else", async () => {
    await expect(existingUsersOf(() => "merge" as never, "acme", request)).rejects.toThrow(/existingUsers answered "merge"/);
  });

  it("recognizes the valid options", () => {
    expect(["conflict", "link", () => "link"].every(isExistingUsersOption)).toBe(true);
    expect([undefined, "LINK", 1, {}].some(isExistingUsersOption)).toBe(false);
  });
});
