/**
 * Turns a client's resource body into canonical form: canonical attribute names and schema URNs,
 * readOnly attributes dropped, identity-provider type mistakes coerced, and `schemas` derived from
 * what the resource actually carries.
 */
import { ScimType, badRequest, invalidValueError, type ValidationIssue } from "../../errors.js";
import { fail, ok, type Result } from "../../result.js";
import type { ResolvedPath } from "./resolved-path.js";
import { formatPath } from "./resolved-path.js";
import type { ResourceSchema } from "./schema-registry.js";
import { isPlainObject, normalizeAttributeValue, type ScimObject } from "./normalize-value.js";
import { readAttribute, writeAttribute } from "./resource-access.js";

/** One attribute of a client body, bound to the schema, with its raw value. */
export interface InputEntry {
  /** The key as the client wrote it (`name.givenName`, `urn:…:User:department`). */
  readonly key: string;
  readonly path: ResolvedPath;
  readonly value: unknown;
}

/** A client body split into bound entries, and the keys that named nothing the schema knows. */
export interface FlattenedInput {
  readonly entries: readonly InputEntry[];
  readonly ignored: readonly string[];
}

/**
 * Splits a body (or a path-less PATCH value, RFC 7644 §3.5.2.1) into entries. Accepts nested
 * extension objects (`{"urn:…:enterprise:2.0:User": {"department": …}}`), URN-qualified keys
 * (`"urn:…:enterprise:2.0:User:department"`), dotted keys (`"name.givenName"`, sent by Entra) and
 * path aliases. Unknown keys, such as Google's SCIM 1.0 URN, are ignored: spec §1 accepts
 * attributes it does not synchronize.
 */
export function flattenInput(schema: ResourceSchema, body: ScimObject): FlattenedInput {
  const entries: InputEntry[] = [];
  const ignored: string[] = [];
  const add = (key: string, value: unknown): void => {
    const resolution = schema.resolvePath(key);
    if (resolution.ok) entries.push({ key, path: resolution.path, value });
    else ignored.push(key);
  };
  for (const [key, value] of Object.entries(body)) {
    if (key.toLowerCase() === "schemas") continue;
    const urnSchema = key.includes(":") ? schema.findSchema(key) : undefined;
    if (urnSchema && isPlainObject(value)) {
      for (const [subKey, subValue] of Object.entries(value)) add(`${urnSchema.id}:${subKey}`, subValue);
    } else {
      add(key, value);
    }
  }
  return { entries, ignored };
}

/** RFC 7643 §3: `schemas` lists the core schema and each extension the resource carries. */
export function schemasFor(schema: ResourceSchema, resource: ScimObject): string[] {
  return [
    schema.core.id,
    ...schema.extensions.filter((extension) => isPlainObject(resource[extension.schema.id])).map((extension) => extension.schema.id),
  ];
}

/**
 * Writes a normalized value at a resolved path. A sub-attribute path on a single-valued complex
 * attribute merges into it; on a multi-valued one it has no element to go to, so it is reported.
 */
export function assignInput(resource: ScimObject, path: ResolvedPath, value: unknown, issues: ValidationIssue[], key: string): void {
  const sub = path.subAttribute;
  if (!sub) {
    writeAttribute(resource, path, value);
    return;
  }
  if (path.attribute.multiValued) {
    issues.push({
      path: key,
      message: `"${formatPath(path)}" names a sub-attribute of a multi-valued attribute; send the whole "${path.attribute.name}" array`,
    });
    return;
  }
  const current = readAttribute(resource, path);
  const merged: ScimObject = isPlainObject(current) ? { ...current } : {};
  if (value === undefined) delete merged[sub.name];
  else merged[sub.name] = value;
  writeAttribute(resource, path, Object.keys(merged).length === 0 ? undefined : merged);
}

/**
 * Normalizes a POST or PUT body for the resource type. Type errors of every attribute are
 * collected into one 400 `invalidValue` (each with its path); a body that is not a JSON object
 * is a 400 `invalidSyntax`.
 */
export function normalizeResource(schema: ResourceSchema, body: unknown): Result<ScimObject> {
  if (!isPlainObject(body)) {
    return fail(badRequest(ScimType.invalidSyntax, `The request body must be a JSON object describing a ${schema.resourceType.name}.`));
  }
  const declared = body["schemas"] ?? Object.entries(body).find(([key]) => key.toLowerCase() === "schemas")?.[1];
  if (declared !== undefined && !(Array.isArray(declared) && declared.every((urn) => typeof urn === "string"))) {
    return fail(badRequest(ScimType.invalidSyntax, `"schemas" must be an array of schema URNs.`));
  }
  const issues: ValidationIssue[] = [];
  const resource: ScimObject = {};
  for (const { key, path, value } of flattenInput(schema, body).entries) {
    const leaf = path.subAttribute ?? path.attribute;
    const normalized = normalizeAttributeValue(leaf, value, key, issues);
    if (normalized !== undefined || readAttribute(resource, path) !== undefined) assignInput(resource, path, normalized, issues, key);
  }
  if (issues.length > 0) return fail(invalidValueError(issues));
  return ok({ schemas: schemasFor(schema, resource), ...resource });
}
