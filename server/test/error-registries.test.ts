import { relative, resolve } from "node:path";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { errorKindsOf, filesConstructing, unnamedErrorKinds } from "../../test/error-kinds.fixture.js";
import { isFixture, isTest, typeScriptFiles } from "../../test/import-graph.fixture.js";
import { PROBLEMS, ProblemType, problem, type ProblemCode } from "../src/analytics/analytics-problem.js";
import { analyticsOperations } from "../src/analytics/definitions/analytics-operations.js";
import { problemStatuses } from "../src/analytics/definitions/problem-statuses.js";
import { problemHandler } from "../src/analytics/problem-handler.js";
import { auditedCommandWrite } from "../src/host/commands/audited-command-write.js";
import { COMMAND_ERRORS, CommandError, EXIT_CODES, commandError, type CommandErrorCode } from "../src/host/commands/command-error.js";

/**
 * The service's error registries (issue 28, point 6): every problem of the analytics interface is
 * one of `PROBLEMS` (src/analytics/analytics-problem.ts), every way a `scimkit` command stops short
 * one of `COMMAND_ERRORS` (src/host/commands/command-error.ts); each renders as its format says,
 * only the registry constructs its class, and any other error class of the service (the console
 * included) is named in a registry's header with what becomes of it.
 */
const PROBLEM_REGISTRY = resolve("src/analytics/analytics-problem.ts");
const CLI_REGISTRY = resolve("src/host/commands/command-error.ts");
const PRODUCTION = [...typeScriptFiles(resolve("src")), ...typeScriptFiles(resolve("console/src"))].filter(
  (file) => !isTest(file) && !isFixture(file),
);
const named = (files: readonly string[]): string[] => files.map((file) => relative(".", file));

const PROBLEM_CODES = Object.keys(PROBLEMS) as ProblemCode[];
const kebab = (code: string): string => code.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

describe("the problem registry (src/analytics/analytics-problem.ts)", () => {
  it("renders every code through the router's problem handler as application/problem+json with its type, title and status", async () => {
    const reported: unknown[] = [];
    const app = express();
    app.get("/:code", ({ params }, _response, next) => {
      next(problem(params["code"] as ProblemCode, "What to do.", { retryAfter: 3 }));
    });
    app.use(problemHandler((error) => reported.push(error)));
    for (const code of PROBLEM_CODES) {
      const { type, title, status } = PROBLEMS[code];
      const answer = await request(app).get(`/${code}`);
      expect(answer.status, code).toBe(status);
      expect(answer.headers["content-type"], code).toBe("application/problem+json; charset=utf-8");
      expect(answer.text, code).toBe(JSON.stringify({ type, title, status, detail: "What to do." }));
      expect(answer.headers["retry-after"], code).toBe("3");
      // RFC 6750 §3: a 401 names the scheme the client should use.
      expect(answer.headers["www-authenticate"], code).toBe(status === 401 ? 'Bearer realm="analytics"' : undefined);
    }
    expect(reported).toEqual([]);
  });

  it("publishes each type once, named after its code, and ProblemType is the registry's", () => {
    for (const code of PROBLEM_CODES) {
      expect(PROBLEMS[code].type, code).toBe(`https://scimkit.dev/problems/${kebab(code)}`);
      expect(ProblemType[code], code).toBe(PROBLEMS[code].type);
    }
    expect(Object.keys(ProblemType)).toEqual(PROBLEM_CODES);
  });

  it("documents for each operation only statuses a problem of the registry has", () => {
    const statuses = new Set(PROBLEM_CODES.map((code) => PROBLEMS[code].status));
    const unknown = analyticsOperations.flatMap((operation) =>
      Object.keys(problemStatuses(operation))
        .map(Number)
        .filter((status) => !statuses.has(status))
        .map((status) => `${operation.operationId}: ${status}`),
    );
    expect(unknown).toEqual([]);
  });

  it("is the only file of the service that constructs an AnalyticsProblem", () => {
    expect(named(filesConstructing(PRODUCTION, "AnalyticsProblem"))).toEqual(named([PROBLEM_REGISTRY]));
  });
});

describe("the CLI registry (src/host/commands/command-error.ts)", () => {
  const CODES = Object.keys(COMMAND_ERRORS) as CommandErrorCode[];

  it("builds every code with its exit code, and records a failed write with the API's status for it", async () => {
    expect(new Set(Object.values(EXIT_CODES)).size).toBe(Object.keys(EXIT_CODES).length);
    for (const code of CODES) {
      const error = commandError(code, "Why.");
      expect(error, code).toBeInstanceOf(CommandError);
      expect([error.exitCode, error.status], code).toEqual([COMMAND_ERRORS[code].exitCode, COMMAND_ERRORS[code].status]);
      expect(error.exitCode, code).not.toBe(EXIT_CODES.done);
      const entries: { readonly outcome: string; readonly status: number }[] = [];
      const write = {
        operation: "cli.deleteOrganization",
        orgId: "acme",
        resourceType: "Organization",
        resourceId: "acme",
        status: 204,
      } as const;
      await expect(
        auditedCommandWrite({ record: async (entry) => void entries.push(entry) }, write, () => Promise.reject(error)),
      ).rejects.toBe(error);
      // A usage error is the API's 400: the request was wrong.
      expect(
        entries.map(({ outcome, status }) => [outcome, status]),
        code,
      ).toEqual([["failure", COMMAND_ERRORS[code].status ?? 400]]);
    }
  });

  it("is the only file of the service that constructs a CommandError", () => {
    expect(named(filesConstructing(PRODUCTION, "CommandError"))).toEqual(named([CLI_REGISTRY]));
  });
});

describe("the service's other errors", () => {
  it("each error class or tagged error of src/ and console/src is a registry's, or named in a registry's header with what becomes of it", () => {
    const kinds = errorKindsOf(PRODUCTION);
    // The reader must see something, or the rule passes vacuously.
    expect(kinds.map(({ name }) => name)).toEqual(
      expect.arrayContaining(["AnalyticsProblem", "CommandError", "ClaimLost", "organizationTreeError", "ApiError"]),
    );
    expect(unnamedErrorKinds(kinds, [PROBLEM_REGISTRY, CLI_REGISTRY])).toEqual([]);
  });
});
