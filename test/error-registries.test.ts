import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { ERROR_SCHEMA, SCIM_ERRORS, ScimType, scimError, type ScimErrorCode } from "../src/errors.js";
import { errorHandler } from "../src/http/error-rendering/error-handler.js";
import { oauthErrorHandler } from "../src/http/oauth/oauth-error.js";
import { OAUTH_ERRORS, oauthError, type BearerErrorCode, type OAuthErrorCode } from "../src/oauth-errors.js";
import { errorKindsOf, filesConstructing, firstArgumentsOf, memberArgumentsOf, unnamedErrorKinds } from "./error-kinds.fixture.js";
import { isFixture, isTest, typeScriptFiles } from "./import-graph.fixture.js";

/**
 * The library's error registries (issue 28, point 6): every SCIM error is one of `SCIM_ERRORS`
 * (src/errors.ts), every OAuth error one of `OAUTH_ERRORS` (src/oauth-errors.ts); each renders
 * as its format says, only the registry constructs its class, and any other error class of the
 * library is named in a registry's header with what becomes of it.
 */
const SCIM_REGISTRY = resolve("src/errors.ts");
const OAUTH_REGISTRY = resolve("src/oauth-errors.ts");
const PRODUCTION = typeScriptFiles(resolve("src")).filter((file) => !isTest(file) && !isFixture(file));
const named = (files: readonly string[]): string[] => files.map((file) => relative(".", file));

const SCIM_CODES = Object.keys(SCIM_ERRORS) as ScimErrorCode[];
/** The codes kept so `badRequest` names a registered pair for every type of RFC 7644 §3.12 Table 9. */
const NOT_ANSWERED_BY_SCIMKIT: readonly ScimErrorCode[] = ["tooMany", "invalidVers", "sensitive"];

describe("the SCIM registry (src/errors.ts)", () => {
  it("renders every code through the router's error handler as the RFC 7644 §3.12 body with its status", async () => {
    const reported: unknown[] = [];
    const app = express();
    app.get("/:code", ({ params }, _response, next) => {
      next(scimError(params["code"] as ScimErrorCode, `The detail of ${String(params["code"])}.`));
    });
    app.use(errorHandler((error) => reported.push(error)));
    for (const code of SCIM_CODES) {
      const { status, scimType } = SCIM_ERRORS[code];
      const answer = await request(app).get(`/${code}`);
      expect(answer.status, code).toBe(status);
      expect(answer.headers["content-type"], code).toBe("application/scim+json; charset=utf-8");
      expect(JSON.parse(answer.text), code).toEqual({
        schemas: [ERROR_SCHEMA],
        status: String(status),
        ...(scimType === undefined ? {} : { scimType }),
        detail: `The detail of ${code}.`,
      });
    }
    // A registered error is an answer, not a failure of the service.
    expect(reported).toEqual([]);
  });

  it("names each status and scimType pair once, and a 400 for every scimType, so badRequest stays inside it", () => {
    const pairs = SCIM_CODES.map((code) => `${SCIM_ERRORS[code].status} ${SCIM_ERRORS[code].scimType ?? "-"}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    for (const scimType of Object.values(ScimType)) expect(pairs, scimType).toContain(`400 ${scimType}`);
  });

  it("holds the codes the library answers with, and marks the three it never does", () => {
    const used = new Set([
      ...firstArgumentsOf(PRODUCTION, "scimError"),
      // badRequest(ScimType.x) and the PATCH engine's abortPatch(ScimType.x) are the 400 of x.
      ...[...memberArgumentsOf(PRODUCTION, "badRequest", "ScimType"), ...memberArgumentsOf(PRODUCTION, "abortPatch", "ScimType")].map(
        (scimType) => SCIM_CODES.find((code) => SCIM_ERRORS[code].status === 400 && SCIM_ERRORS[code].scimType === scimType),
      ),
    ]);
    for (const code of used) expect(SCIM_CODES).toContain(code);
    expect(SCIM_CODES.filter((code) => !used.has(code))).toEqual(NOT_ANSWERED_BY_SCIMKIT);
  });

  it("is the only file of the library that constructs a ScimError", () => {
    expect(named(filesConstructing(PRODUCTION, "ScimError"))).toEqual(named([SCIM_REGISTRY]));
  });
});

describe("the OAuth registry (src/oauth-errors.ts)", () => {
  const TOKEN_ENDPOINT_CODES = (Object.keys(OAUTH_ERRORS) as (keyof typeof OAUTH_ERRORS)[]).filter(
    (code): code is OAuthErrorCode => code !== "invalid_token" && code !== "insufficient_scope",
  );

  it("renders every token endpoint code through its error handler as RFC 6749 §5.2 says, never cached", async () => {
    const app = express();
    app.post("/:code", ({ params }, _response, next) => {
      const code = params["code"] as OAuthErrorCode;
      next(oauthError(code, "Why.", code === "slow_down" ? { retryAfterSeconds: 7 } : {}));
    });
    app.use(oauthErrorHandler(() => undefined));
    for (const code of TOKEN_ENDPOINT_CODES) {
      const answer = await request(app).post(`/${code}`);
      expect(answer.status, code).toBe(OAUTH_ERRORS[code].status);
      expect(JSON.parse(answer.text), code).toEqual({ error: code, error_description: "Why." });
      expect(answer.headers["cache-control"], code).toBe("no-store");
      // RFC 6749 §5.2: invalid_client names the scheme the client can authenticate with.
      expect(answer.headers["www-authenticate"], code).toBe(code === "invalid_client" ? 'Basic realm="OAuth", charset="UTF-8"' : undefined);
      expect(answer.headers["retry-after"], code).toBe(code === "slow_down" ? "7" : undefined);
    }
  });

  it("answers an unexpected failure as server_error, and reports it", async () => {
    const reported: unknown[] = [];
    const app = express();
    app.post("/token", () => {
      throw new Error("the issuer's key store is gone");
    });
    app.use(oauthErrorHandler((error) => reported.push(error)));
    const answer = await request(app).post("/token");
    expect(answer.status).toBe(OAUTH_ERRORS.server_error.status);
    expect((answer.body as { error: string }).error).toBe("server_error");
    expect(reported).toHaveLength(1);
  });

  it("gives a refused bearer token the status of the SCIM error it rides on, with its code in WWW-Authenticate", async () => {
    const riders: Record<BearerErrorCode, ScimErrorCode> = { invalid_token: "unauthorized", insufficient_scope: "forbidden" };
    const app = express();
    app.get("/:code", ({ params }, _response, next) => {
      const code = params["code"] as BearerErrorCode;
      next(scimError(riders[code], "Refused.", { bearerError: { error: code, description: "Refused." } }));
    });
    app.use(errorHandler(() => undefined));
    for (const code of Object.keys(riders) as BearerErrorCode[]) {
      expect(OAUTH_ERRORS[code].status, code).toBe(SCIM_ERRORS[riders[code]].status);
      const answer = await request(app).get(`/${code}`);
      expect(answer.status, code).toBe(OAUTH_ERRORS[code].status);
      expect(answer.headers["www-authenticate"], code).toBe(`Bearer realm="SCIM", error="${code}", error_description="Refused."`);
    }
  });

  it("is the only file of the library that constructs an OAuthError", () => {
    expect(named(filesConstructing(PRODUCTION, "OAuthError"))).toEqual(named([OAUTH_REGISTRY]));
  });
});

describe("the library's other errors", () => {
  it("each error class of src/ is a registry's, or named in a registry's header with what becomes of it", () => {
    const kinds = errorKindsOf(PRODUCTION);
    // The reader must see something, or the rule passes vacuously.
    expect(kinds.map(({ name }) => name)).toEqual(
      expect.arrayContaining(["ScimError", "OAuthError", "TokenRefusedError", "FilterSyntaxError"]),
    );
    expect(unnamedErrorKinds(kinds, [SCIM_REGISTRY, OAUTH_REGISTRY])).toEqual([]);
  });
});

// The reader must see what a rule is about, or every rule passes vacuously.
describe("the error reader", () => {
  it("finds error classes through other error classes, and tagged errors, but not what comments or strings say", () => {
    const directory = mkdtempSync(join(tmpdir(), "scimkit-error-kinds-"));
    try {
      const file = (name: string, text: string): string => {
        writeFileSync(join(directory, name), text);
        return join(directory, name);
      };
      const base = file("base.ts", "export class BaseError extends Error {}\nexport class Plain extends Map<string, string> {}\n");
      const derived = file(
        "derived.ts",
        [
          'import { BaseError } from "./base.js";',
          "export class DerivedError extends BaseError {}",
          "// class Commented extends Error {}",
          'const text = "class Quoted extends Error {}";',
          'export function taggedError(): Error { return Object.assign(new Error(text), { code: "tagged" as const }); }',
          'export const made = new DerivedError("x");',
        ].join("\n"),
      );
      expect(errorKindsOf([base, derived]).map(({ name, form }) => `${form} ${name}`)).toEqual([
        "class BaseError",
        "class DerivedError",
        "tagged taggedError",
      ]);
      expect(filesConstructing([base, derived], "DerivedError")).toEqual([derived]);
      // A registry holds its own class, and names in its header the ones it does not.
      const registry = file("registry.ts", "/**\n * `DerivedError` becomes a 400.\n */\nexport class RegisteredError extends Error {}\n");
      const kinds = errorKindsOf([base, derived, registry]);
      expect(unnamedErrorKinds(kinds, [registry]).map((entry) => entry.replace(/^.*[\\/]/, ""))).toEqual([
        "base.ts: BaseError",
        "derived.ts: taggedError",
      ]);
      expect(filesConstructing([base, derived], "Quoted")).toEqual([]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
