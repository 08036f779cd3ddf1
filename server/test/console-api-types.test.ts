import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONSOLE_API_TYPES_FILE, consoleApiTypes } from "../scripts/console-api-types.js";
import { openApiDocument } from "../src/analytics/definitions/openapi-document.js";

/**
 * The console types the analytics interface's bodies from one source (issue 28, point 5): the
 * OpenAPI document's component schemas, generated into console/src/analytics-api-types.ts. A
 * schema changed without the file written again fails here (and `npm run typecheck`); written
 * again, a change the console depends on fails the console's type-check.
 */
describe("the console's types of the analytics interface", () => {
  const generated = consoleApiTypes();

  it("are what the OpenAPI document generates now (npm run console:api-types writes them)", () => {
    expect(readFileSync(CONSOLE_API_TYPES_FILE, "utf8")).toBe(generated);
  });

  it("declare every component schema, and nothing else", () => {
    const { components } = openApiDocument() as { readonly components: { readonly schemas: Readonly<Record<string, unknown>> } };
    const declared = [...generated.matchAll(/^export (?:interface|type) (\w+)/gm)].map((match) => match[1]);
    expect(declared).toEqual(Object.keys(components.schemas));
  });

  it("keep what a schema says a body may hold: required and optional members, nulls, enums, references", () => {
    expect(generated).toContain('export type OrganizationStatus = "active" | "suspended";');
    expect(generated).toMatch(
      /export interface Organization \{[^}]*readonly id: OrganizationId;[^}]*readonly parentId\?: OrganizationId;/s,
    );
    expect(generated).toMatch(
      /export interface OrganizationList \{[^}]*readonly data: readonly Organization\[\];[^}]*readonly nextCursor: string \| null;/s,
    );
    // An open schema (no `additionalProperties: false`) may hold members it does not list.
    expect(generated).toMatch(/export interface DirectoryUserDetail \{.*readonly \[member: string\]: unknown;\n\}/s);
  });
});
