/**
 * The console's types of the analytics interface, generated from one source: the
 * `components.schemas` of the OpenAPI document (src/analytics/definitions/openapi-document.ts),
 * each JSON Schema (2020-12) as a TypeScript type with its description as JSDoc. The console
 * imports them from console/src/analytics-api-types.ts, so a change of a schema that the console
 * depends on fails its type-check once the file is written again — and `--check`, which the
 * type-check runs first, fails while the file is out of date.
 *
 *   node --conditions=scimkit-source --import tsx scripts/console-api-types.ts          writes the file
 *   node --conditions=scimkit-source --import tsx scripts/console-api-types.ts --check  exits 1 when it is stale
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "../src/analytics/definitions/openapi-document.js";

/** The generated file. */
export const CONSOLE_API_TYPES_FILE = fileURLToPath(new URL("../console/src/analytics-api-types.ts", import.meta.url));

type Schema = Readonly<Record<string, unknown>>;

const REF = "#/components/schemas/";

/** Schema keywords that only constrain values a type already admits, or only document them. */
const NOT_TYPES = new Set([
  "description",
  "format",
  "pattern",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "example",
  "examples",
]);
/** Keywords the conversion reads. Any other fails the generation, rather than be dropped unseen. */
const KNOWN = new Set([
  ...NOT_TYPES,
  "$ref",
  "type",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "items",
  "properties",
  "required",
  "additionalProperties",
]);

function doc(schema: Schema, indent: string): string {
  const description = schema["description"];
  if (typeof description !== "string") return "";
  // `*/` would end the comment early.
  const lines = description.replaceAll("*/", "*\\/").split("\n");
  return lines.length === 1
    ? `${indent}/** ${lines[0]} */\n`
    : `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join("\n")}\n${indent} */\n`;
}

function union(types: readonly string[]): string {
  const unique = [...new Set(types)];
  return unique.length === 1 ? (unique[0] as string) : unique.map((type) => (type.includes("&") ? `(${type})` : type)).join(" | ");
}

function objectType(schema: Schema, indent: string, where: string): string {
  const properties = (schema["properties"] ?? {}) as Readonly<Record<string, Schema>>;
  const required = new Set((schema["required"] ?? []) as readonly string[]);
  const additional = schema["additionalProperties"];
  const names = Object.keys(properties);
  if (names.length === 0) {
    if (additional === false) return "Readonly<Record<string, never>>";
    const values = additional === undefined || additional === true ? "unknown" : typeOf(additional as Schema, indent, `${where}.*`);
    return `Readonly<Record<string, ${values}>>`;
  }
  const inner = `${indent}  `;
  const members = names.map((name) => {
    const property = properties[name] as Schema;
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    return `${doc(property, inner)}${inner}readonly ${key}${required.has(name) ? "" : "?"}: ${typeOf(property, inner, `${where}.${name}`)};\n`;
  });
  // An open object (no `additionalProperties: false`) may hold members it does not list.
  if (additional !== false) members.push(`${inner}readonly [member: string]: unknown;\n`);
  return `{\n${members.join("")}${indent}}`;
}

function singleType(type: string, schema: Schema, indent: string, where: string): string {
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const items = schema["items"];
      const element = items === undefined ? "unknown" : typeOf(items as Schema, indent, `${where}[]`);
      return `readonly ${/[|&]/.test(element) ? `(${element})` : element}[]`;
    }
    case "object":
      return objectType(schema, indent, where);
    default:
      throw new Error(`console-api-types: ${where} has type ${JSON.stringify(type)}, which the conversion does not know.`);
  }
}

/** The TypeScript type of `schema`, found at `where` (for the messages), indented as at `indent`. */
function typeOf(schema: Schema, indent: string, where: string): string {
  for (const keyword of Object.keys(schema)) {
    if (!KNOWN.has(keyword)) throw new Error(`console-api-types: ${where} uses ${keyword}, which the conversion does not know.`);
  }
  const ref = schema["$ref"];
  if (typeof ref === "string") {
    if (!ref.startsWith(REF)) throw new Error(`console-api-types: ${where} refers to ${ref}, outside the components.`);
    return ref.slice(REF.length);
  }
  if ("const" in schema) return JSON.stringify(schema["const"]);
  const enumeration = schema["enum"];
  if (Array.isArray(enumeration)) return union(enumeration.map((value) => JSON.stringify(value)));
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const options = schema[keyword];
    if (Array.isArray(options))
      return union(options.map((option: Schema, index) => typeOf(option, indent, `${where}.${keyword}[${index}]`)));
  }
  const all = schema["allOf"];
  if (Array.isArray(all)) return all.map((part: Schema, index) => typeOf(part, indent, `${where}.allOf[${index}]`)).join(" & ");
  const type = schema["type"] ?? (schema["properties"] !== undefined ? "object" : undefined);
  if (type === undefined) return "unknown";
  if (Array.isArray(type)) return union(type.map((each: string) => singleType(each, schema, indent, where)));
  return singleType(type as string, schema, indent, where);
}

/** The file's text: every component schema as an exported type, formatted as the repository's code is. */
export function consoleApiTypes(): string {
  const { components } = openApiDocument() as { readonly components: { readonly schemas: Readonly<Record<string, Schema>> } };
  const declarations = Object.entries(components.schemas).map(([name, schema]) => {
    const type = typeOf(schema, "", name);
    const declaration = type.startsWith("{\n") ? `export interface ${name} ${type}` : `export type ${name} = ${type};`;
    return `${doc(schema, "")}${declaration}\n`;
  });
  const text = `/**
 * The analytics interface's bodies (docs/analytics.md), generated from the component schemas of its
 * OpenAPI document by server/scripts/console-api-types.ts. Do not edit: \`npm run console:api-types\`
 * writes it again, and the type-check fails while it is out of date.
 */

${declarations.join("\n")}`;
  const biome = fileURLToPath(new URL("../../node_modules/@biomejs/biome/bin/biome", import.meta.url));
  return execFileSync(process.execPath, [biome, "format", `--stdin-file-path=${CONSOLE_API_TYPES_FILE}`], {
    input: text,
    encoding: "utf8",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = consoleApiTypes();
  if (process.argv.includes("--check")) {
    if (readFileSync(CONSOLE_API_TYPES_FILE, "utf8") !== text) {
      console.error(
        "server/console/src/analytics-api-types.ts is out of date with the OpenAPI document: run `npm run console:api-types --workspace=@scimkit/server`.",
      );
      process.exit(1);
    }
  } else {
    writeFileSync(CONSOLE_API_TYPES_FILE, text);
  }
}
