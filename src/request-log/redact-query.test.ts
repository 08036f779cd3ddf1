import { describe, expect, it } from "vitest";
import { redactQuery } from "./redact-query.js";

const secrets = new Set(["password", "pin"]);

describe("redactQuery", () => {
  it("keeps a path without a query, and the SCIM parameters as sent", () => {
    expect(redactQuery("/scim/v2/Users/42", secrets)).toBe("/scim/v2/Users/42");
    const url =
      "/scim/v2/Users?filter=userName%20eq%20%22a%22&startIndex=1&count=10&sortBy=name&sortOrder=ascending&attributes=id&excludedAttributes=groups&cursor=";
    expect(redactQuery(url, secrets)).toBe(url);
  });

  it("masks the value of every other parameter, whatever its case, token-like or not (issue 27)", () => {
    expect(
      redactQuery("/v2/Users?access_token=tok1&Token=tok2&client_secret=s&PASSWORD=p&code=c&apiKey=k&color=blue&count=5", secrets),
    ).toBe(
      "/v2/Users?access_token=[redacted]&Token=[redacted]&client_secret=[redacted]&PASSWORD=[redacted]&code=[redacted]&apiKey=[redacted]&color=[redacted]&count=5",
    );
  });

  it("masks a SCIM parameter whose value names a secret, and a parameter whose name is not a plain word", () => {
    expect(redactQuery("/v2/Users?filter=password%20eq%20%22hunter2%22&attributes=id", secrets)).toBe(
      "/v2/Users?filter=[redacted]&attributes=id",
    );
    const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ";
    expect(redactQuery(`/v2/Users?${token}&%ZZ=1&password`, secrets)).toBe("/v2/Users?[redacted]&[redacted]&[redacted]");
  });
});
