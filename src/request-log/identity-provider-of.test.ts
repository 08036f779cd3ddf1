import { describe, expect, it } from "vitest";
import { identityProviderOf } from "./identity-provider-of.js";

describe("identityProviderOf", () => {
  it.each([
    ["Microsoft.AAD.Provisioning", "entra"],
    ["Azure AD SCIM client", "entra"],
    ["Okta SCIM Client 1.0.0", "okta"],
    ["OneLogin SCIM client", "onelogin"],
    ["Google-Auto-Provisioning", "google"],
    ["JumpCloud SCIM", "jumpcloud"],
    ["PingOne provisioning", "ping"],
    ["PingFederate/11.2", "ping"],
    ["curl/8.5.0", "other"],
    ["shopping-bot", "other"],
    [undefined, "other"],
  ])("%s is %s", (userAgent, expected) => {
    expect(identityProviderOf(userAgent)).toBe(expected);
  });
});
