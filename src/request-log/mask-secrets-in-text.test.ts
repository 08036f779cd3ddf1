import { describe, expect, it } from "vitest";
import { maskSecretsInText } from "./mask-secrets-in-text.js";

const secrets = new Set(["password", "pin"]);

describe("maskSecretsInText", () => {
  it("masks a secret member's string value in JSON with a trailing comma, and keeps the rest as sent", () => {
    expect(maskSecretsInText('{"userName":"alice","password":"hunter2",}', secrets)).toBe('{"userName":"alice","password":"[redacted]",}');
  });

  it("masks values that are numbers, objects or arrays, and credential-like names of any schema", () => {
    const text = '{"pin": 1234, "apiToken": {"v": "t1"}, "clientSecret": ["s1", "s2"], "userName": "a" "x"}';
    expect(maskSecretsInText(text, secrets)).toBe(
      '{"pin": "[redacted]", "apiToken": "[redacted]", "clientSecret": "[redacted]", "userName": "a" "x"}',
    );
  });

  it("reads single quotes, unquoted names, = for :, escaped names and URN-prefixed names", () => {
    expect(maskSecretsInText("{'password': 'p1', userName: 'a'}", secrets)).toBe("{'password': \"[redacted]\", userName: 'a'}");
    expect(maskSecretsInText("{password = p1, pin=22}", secrets)).toBe('{password = "[redacted]", pin="[redacted]"}');
    expect(maskSecretsInText('{"pass\\u0077ord": "p1"', secrets)).toBe('{"pass\\u0077ord": "[redacted]"');
    expect(maskSecretsInText('{"urn:example:ext:1.0:User:PIN": "9", x', secrets)).toBe('{"urn:example:ext:1.0:User:PIN": "[redacted]", x');
  });

  it("masks a malformed PATCH operation's value when any of its Path/path members names a secret (issue 27)", () => {
    const text = '{"Operations":[{"op":"replace","path":"displayName","Path":"password","value":"p1",}]';
    const masked = maskSecretsInText(text, secrets);
    expect(masked).toBe('{"Operations":[{"op":"replace","path":"displayName","Path":"password","value":"[redacted]",}]');
  });

  it("masks a body cut off inside a secret's string", () => {
    expect(maskSecretsInText('{"userName":"a","password":"hunt', secrets)).toBe('{"userName":"a","password":"[redacted]"');
  });

  it("masks the value of a PATCH operation whose path names a secret, before or after the path, open or closed", () => {
    const text =
      '{"Operations":[{"op":"replace","value":"p1","path":"password"},{"op":"add","path":"title","value":"boss"},{"value":{"pin":"2"},"op":"replace"},]';
    expect(maskSecretsInText(text, secrets)).toBe(
      '{"Operations":[{"op":"replace","value":"[redacted]","path":"password"},{"op":"add","path":"title","value":"boss"},{"value":{"pin":"[redacted]"},"op":"replace"},]',
    );
    expect(maskSecretsInText('{"Operations":[{"op":"replace","path":"urn:x:User:password","value":"p2"', secrets)).toBe(
      '{"Operations":[{"op":"replace","path":"urn:x:User:password","value":"[redacted]"',
    );
  });

  it("keeps nothing when a secret-like word is left that it cannot place as a member name", () => {
    expect(maskSecretsInText('{"password" "hunter2"}', secrets)).toBeUndefined();
    expect(maskSecretsInText("password hunter2", secrets)).toBeUndefined();
    expect(maskSecretsInText('{"displayName": "token holder",}', secrets)).toBeUndefined();
  });

  it("leaves text without secrets as it is", () => {
    expect(maskSecretsInText("{not json", secrets)).toBe("{not json");
    expect(maskSecretsInText("", secrets)).toBe("");
  });
});
