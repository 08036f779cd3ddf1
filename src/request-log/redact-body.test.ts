import { describe, expect, it } from "vitest";
import { attribute } from "../scim/schema/attribute-definition.js";
import { createSchemaRegistry } from "../scim/schema/schema-registry.js";
import { mayHoldSecret, REDACTED, redactBody, secretAttributeNames, truncateUtf8 } from "./redact-body.js";

const secrets = new Set(["password", "pin"]);

describe("secretAttributeNames", () => {
  it("names password and every returned:never or writeOnly attribute of the registry", () => {
    expect([...secretAttributeNames(createSchemaRegistry())]).toEqual(["password"]);
  });
});

describe("redactBody", () => {
  it("replaces secret members at any depth, extension URNs included", () => {
    const body = {
      userName: "a",
      password: "p1",
      "urn:example:ext:1.0:User": { pin: "1234", color: "blue" },
      "urn:example:ext:1.0:User:pin": "5678",
      apiToken: "t",
      clientSecret: "s",
      emails: [{ value: "a@example.com" }],
    };
    expect(redactBody(body, secrets)).toEqual({
      userName: "a",
      password: REDACTED,
      "urn:example:ext:1.0:User": { pin: REDACTED, color: "blue" },
      "urn:example:ext:1.0:User:pin": REDACTED,
      apiToken: REDACTED,
      clientSecret: REDACTED,
      emails: [{ value: "a@example.com" }],
    });
  });

  it("replaces the value of a PATCH operation whose path names a secret, and only that one", () => {
    const body = {
      Operations: [
        { op: "replace", path: "password", value: "p1" },
        { op: "replace", Path: "urn:ietf:params:scim:schemas:core:2.0:User:PASSWORD", Value: "p2" },
        { op: "add", path: 'x[type eq "password"].pin', value: "p3" },
        { op: "replace", path: 'emails[type eq "password"].value', value: "a@example.com" },
        { op: "replace", value: { password: "p4", active: false } },
      ],
    };
    expect(redactBody(body, secrets)).toEqual({
      Operations: [
        { op: "replace", path: "password", value: REDACTED },
        { op: "replace", Path: "urn:ietf:params:scim:schemas:core:2.0:User:PASSWORD", Value: REDACTED },
        { op: "add", path: 'x[type eq "password"].pin', value: REDACTED },
        { op: "replace", path: 'emails[type eq "password"].value', value: "a@example.com" },
        { op: "replace", value: { password: REDACTED, active: false } },
      ],
    });
  });

  it("replaces every value of an operation when any of its Path/path members names a secret, whichever comes first (issue 27)", () => {
    const body = {
      Operations: [
        { op: "replace", path: "displayName", Path: "password", value: "p1" },
        { op: "replace", Path: "password", path: "displayName", Value: "p2", value: "p3" },
        { op: "replace", PATH: "nickName", path: "PassWord", VALUE: "p4" },
        { op: "replace", path: ["password"], value: "p5" },
        { op: "replace", path: "displayName", Path: "nickName", value: { nested: { PASSWORD: "p6", Pin: "p7" } } },
      ],
    };
    const redacted = JSON.stringify(redactBody(body, secrets));
    for (const secret of ["p1", "p2", "p3", "p4", "p5", "p6", "p7"]) expect(redacted).not.toContain(`"${secret}"`);
    expect(redactBody(body, secrets)).toMatchObject({
      Operations: [
        { path: "displayName", Path: "password", value: REDACTED },
        { Value: REDACTED, value: REDACTED },
        { VALUE: REDACTED },
        { value: REDACTED },
        { value: { nested: { PASSWORD: REDACTED, Pin: REDACTED } } },
      ],
    });
  });

  it("leaves the body it was given unchanged", () => {
    const body = { password: "p" };
    redactBody(body, secrets);
    expect(body).toEqual({ password: "p" });
  });

  it("is used with the names of a custom writeOnly attribute", () => {
    const registry = createSchemaRegistry({
      schemas: [
        {
          id: "urn:example:Device",
          name: "Device",
          description: "Device",
          attributes: [attribute("label"), attribute("enrollmentKey", { mutability: "writeOnly", returned: "never" })],
        },
      ],
      resourceTypes: [
        { id: "Device", name: "Device", endpoint: "/Devices", description: "Device", schema: "urn:example:Device", schemaExtensions: [] },
      ],
    });
    expect(secretAttributeNames(registry).has("enrollmentkey")).toBe(true);
  });
});

describe("truncateUtf8", () => {
  it("cuts at a byte count, never inside a character", () => {
    expect(truncateUtf8("hello", 10)).toEqual({ text: "hello", truncated: false });
    expect(truncateUtf8("h\u00e9llo", 2)).toEqual({ text: "h", truncated: true });
    expect(truncateUtf8("h\u00e9llo", 3)).toEqual({ text: "h\u00e9", truncated: true });
  });
});

describe("mayHoldSecret", () => {
  it("is false only for text redactBody would leave as it is", () => {
    const plain = { userName: "a", emails: [{ value: "a@example.com" }], Operations: [{ op: "replace", path: "active", value: false }] };
    expect(mayHoldSecret(JSON.stringify(plain), secrets)).toBe(false);
    expect(redactBody(plain, secrets)).toEqual(plain);
    for (const text of [
      '{"PIN":"1"}',
      '{"urn:example:ext:1.0:User:pin":"1"}',
      '{"clientSecret":"s"}',
      '{"Operations":[{"path":"password","value":"p"}]}',
      '{"pass\\u0077ord":"p"}',
    ]) {
      expect(mayHoldSecret(text, secrets), text).toBe(true);
    }
  });
});
