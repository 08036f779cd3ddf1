import { describe, expect, it } from "vitest";
import { bearerChallenge } from "./bearer-challenge.js";

describe("bearerChallenge", () => {
  it("is the bare realm when no error is given (RFC 6750 §3: a request without credentials)", () => {
    expect(bearerChallenge()).toBe('Bearer realm="SCIM"');
  });

  it("names the error, its description and the scope needed", () => {
    expect(bearerChallenge({ error: "invalid_token", description: "The access token has expired." })).toBe(
      'Bearer realm="SCIM", error="invalid_token", error_description="The access token has expired."',
    );
    expect(bearerChallenge({ error: "insufficient_scope", description: "Needs scim.", scope: " scim  write " })).toBe(
      'Bearer realm="SCIM", error="insufficient_scope", error_description="Needs scim.", scope="scim write"',
    );
  });

  it("replaces what RFC 6750 §3 does not allow in a quoted value, so a verifier's text cannot break the header", () => {
    const challenge = bearerChallenge({ error: "invalid_token", description: 'a "quoted" \\ line\r\nSet-Cookie: x=1 é', scope: 'sc"ope' });
    expect(challenge).toBe(
      'Bearer realm="SCIM", error="invalid_token", error_description="a ?quoted? ? line??Set-Cookie: x=1 ?", scope="sc?ope"',
    );
    expect(challenge).toMatch(/^[\x20-\x7E]+$/);
  });
});
