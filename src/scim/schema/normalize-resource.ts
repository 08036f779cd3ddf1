/**
 * Turns a client's resource body into canonical form: canonical attribute names and schema URNs,
 * readOnly attributes dropped, identity-provider type mistakes coerced, and `schemas` derived from
 * what the resource actually carries.
 */
import { ScimType, badRequest, invalidValueError, type ValidationIssue } from "../../errors.js";
import { fail, ok, type Result } from "../../result.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
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
  /**
   * Keys that are attribute paths rather than names (dotted, URN-qualified, filtered), refused
   * because `Tolerances.pathKeys` is off; always empty when it is on.
   */
  readonly pathKeys: readonly string[];
}

/** The issue a path used as a key is, when `Tolerances.pathKeys` is off. */
export function pathKeyIssue(key: string): ValidationIssue {
  return {
    path: key,
    message:
      'is an attribute path, not an attribute name; send attributes as the resource has them (RFC 7644 §3.5.2, RFC 7643 §3.3), such as {"name": {"givenName": …}} or an extension\'s attributes under its URN',
  };
}

/**
 * Splits a body (or a path-less PATCH value, RFC 7644 §3.5.2.1) into entries. Accepts nested
 * extension objects (`{"urn:…:enterprise:2.0:User": {"department": …}}`), URN-qualified keys
 * (`"urn:…:enterprise:2.0:User:department"`), dotted keys (`"name.givenName"`, sent by Entra) and
 * path aliases. Unknown keys, such as Google's SCIM 1.0 URN, are ignored: spec §1 accepts
 * attributes it does not synchronize. With `tolerances.pathKeys` off, dotted, URN-qualified and
 * filtered keys are listed in `pathKeys` instead.
 */
export function flattenInput(schema: ResourceSchema, body: ScimObject, tolerances: Tolerances = ALL_TOLERANCES): FlattenedInput {
  const entries: InputEntry[] = [];
  const ignored: string[] = [];
  const pathKeys: string[] = [];
  // `named` is the attribute's own name as the client wrote it, without the URN this function
  // prefixed for a nested extension object.
  const add = (key: string, named: string, value: unknown): void => {
    const resolution = schema.resolvePath(key);
    // Tolerances.pathKeys: Entra's path-less operations carry "name.givenName" and URN-qualified
    // keys (Known issues, Requests to replace multiple attributes); an attribute name has neither.
    if (!tolerances.pathKeys && (named.includes("[") || (resolution.ok && (named.includes(".") || named.includes(":"))))) {
      pathKeys.push(key);
    } else if (resolution.ok) entries.push({ key, path: resolution.path, value });
    else ignored.push(key);
  };
  for (const [key, value] of Object.entries(body)) {
    if (key.toLowerCase() === "schemas") continue;
    const urnSchema = key.includes(":") ? schema.findSchema(key) : undefined;
    if (urnSchema && isPlainObject(value)) {
      for (const [subKey, subValue] of Object.entries(value)) add(`${urnSchema.id}:${subKey}`, subKey, subValue);
    } else {
      add(key, key, value);
    }
  }
  return { entries, ignored, pathKeys };
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
 * `schemas` as the tolerances allow it: required unless `missingSchemas`, and listing only this
 * type's schemas unless `foreignSchemaUrns` (RFC 7643 §3).
 */
function checkDeclaredSchemas(schema: ResourceSchema, declared: readonly string[] | undefined, tolerances: Tolerances): Result<true> {
  if (declared === undefined) {
    if (tolerances.missingSchemas) return ok(true);
    return fail(badRequest(ScimType.invalidSyntax, `The body must carry "schemas" listing "${schema.core.id}" (RFC 7643 §3).`));
  }
  if (tolerances.foreignSchemaUrns) return ok(true);
  // Tolerances.foreignSchemaUrns: Google adds its SCIM 1.0 URN, Entra an ADSCIM one for groups.
  const foreign = declared.find((urn) => urn.toLowerCase() !== schema.core.id.toLowerCase() && !schema.findSchema(urn));
  if (foreign === undefined) return ok(true);
  return fail(
    badRequest(
      ScimType.invalidSyntax,
      `"schemas" lists ${JSON.stringify(foreign)}, which is not a schema of ${schema.resourceType.name} here; list "${schema.core.id}" and its extensions only (RFC 7643 §3).`,
    ),
  );
}

/**
 * Normalizes a POST or PUT body for the resource type, accepting the identity-provider shapes
 * `tolerances` allows (default: every one). Type errors of every attribute are collected into one
 * 400 `invalidValue` (each with its path); a body that is not a JSON object, or whose `schemas`
 * the tolerances refuse, is a 400 `invalidSyntax`.
 */
export function normalizeResource(schema: ResourceSchema, body: unknown, tolerances: Tolerances = ALL_TOLERANCES): Result<ScimObject> {
  if (!isPlainObject(body)) {
    return fail(badRequest(ScimType.invalidSyntax, `The request body must be a JSON object describing a ${schema.resourceType.name}.`));
  }
  const declared = body["schemas"] ?? Object.entries(body).find(([key]) => key.toLowerCase() === "schemas")?.[1];
  if (declared !== undefined && !(Array.isArray(declared) && declared.every((urn) => typeof urn === "string"))) {
    return fail(badRequest(ScimType.invalidSyntax, `"schemas" must be an array of schema URNs.`));
  }
  const schemas = checkDeclaredSchemas(schema, declared as readonly string[] | undefined, tolerances);
  if (!schemas.ok) return schemas;
  const issues: ValidationIssue[] = [];
  const resource: ScimObject = {};
  const flattened = flattenInput(schema, body, tolerances);
  for (const key of flattened.pathKeys) issues.push(pathKeyIssue(key));
  const options = { tolerances };
  for (const { key, path, value } of flattened.entries) {
    const leaf = path.subAttribute ?? path.attribute;
    const normalized = normalizeAttributeValue(leaf, value, key, issues, options);
    if (normalized !== undefined || readAttribute(resource, path) !== undefined) assignInput(resource, path, normalized, issues, key);
  }
  if (issues.length > 0) return fail(invalidValueError(issues));
  return ok({ schemas: schemasFor(schema, resource), ...resource });
}
