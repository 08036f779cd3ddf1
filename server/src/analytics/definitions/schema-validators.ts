/**
 * The ajv validators of the analytics interface, compiled from the operation definitions and
 * component schemas — the same objects the OpenAPI document is generated from. Failures become
 * `ProblemFieldError`s a person can act on: the field (a JSON pointer into the body, or a query
 * parameter's name) and what is wrong with it.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import type { ProblemFieldError } from "../analytics-problem.js";
import { analyticsSchemas, CHOSEN_ORGANIZATION_ID_PATTERN, NAME_PATTERN, ref, WITHOUT_NUL_PATTERN } from "./analytics-schemas.js";
import type { JsonSchema, OperationDefinition, ParameterDefinition } from "./operation-definition.js";
import { problemStatuses } from "./problem-statuses.js";

/** The `$id` under which the component schemas are registered with ajv, as `$defs`. */
const ROOT_ID = "https://scimkit.dev/schemas/analytics";
const COMPONENT_PREFIX = "#/components/schemas/";
/** The media type of every error body (RFC 9457 §3). */
export const PROBLEM_TYPE = "application/problem+json";

/**
 * The definitions reference components the OpenAPI way (`#/components/schemas/X`); ajv resolves
 * references against the schema they are in, so they are pointed at the registered root instead.
 */
function forAjv(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(forAjv);
  if (typeof value !== "object" || value === null) return value;
  const result: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    result[key] =
      key === "$ref" && typeof inner === "string" && inner.startsWith(COMPONENT_PREFIX)
        ? `${ROOT_ID}#/$defs/${inner.slice(COMPONENT_PREFIX.length)}`
        : forAjv(inner);
  }
  return result;
}

function createAjv(): Ajv2020 {
  // allowUnionTypes: nullable fields are `type: ["string", "null"]`, the 2020-12 way (OpenAPI 3.1).
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  formats.default(ajv);
  ajv.addSchema({ $id: ROOT_ID, $defs: forAjv(analyticsSchemas) as Record<string, unknown> });
  return ajv;
}

let shared: Ajv2020 | undefined;
/** One ajv instance for the process: the definitions are constants, so validators compile once. */
function ajv(): Ajv2020 {
  shared ??= createAjv();
  return shared;
}

const compiled = new Map<string, ValidateFunction>();
function compile(key: string, schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv().compile(forAjv(schema) as JsonSchema);
    compiled.set(key, validate);
  }
  return validate;
}

const FORMAT_NAMES: Readonly<Record<string, string>> = {
  email: "an e-mail address",
  uuid: "a UUID",
  "date-time": "an ISO 8601 date-time with a time zone",
  uri: "an absolute URI",
};

const TYPE_NAMES: Readonly<Record<string, string>> = {
  object: "a JSON object",
  array: "an array",
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  null: "null",
};

function typeName(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(",");
  return types.map((one) => TYPE_NAMES[String(one)] ?? String(one)).join(" or ");
}

/** What a person should change, from one ajv error. */
function messageOf(error: ErrorObject, unknownName: string): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties":
      return `is not a known ${unknownName}`;
    case "required":
      return "is required";
    case "type":
      return `must be ${typeName(params["type"])}`;
    case "enum":
      return `must be one of: ${(params["allowedValues"] as readonly unknown[]).map(String).join(", ")}`;
    case "format":
      return `must be ${FORMAT_NAMES[String(params["format"])] ?? `in the format ${String(params["format"])}`}`;
    case "minLength":
      return params["limit"] === 1 ? "must not be empty" : `must have at least ${String(params["limit"])} characters`;
    case "maxLength":
      return `must have at most ${String(params["limit"])} characters`;
    case "pattern":
      if (params["pattern"] === CHOSEN_ORGANIZATION_ID_PATTERN) {
        return "must be a SCIM path segment: 1–64 letters, digits, '.', '_', '~' or '-', and not '.' or '..'";
      }
      if (params["pattern"] === WITHOUT_NUL_PATTERN) return "must not contain the NUL character (U+0000)";
      if (params["pattern"] === NAME_PATTERN) return "must not be blank nor contain the NUL character (U+0000)";
      return `must match ${String(params["pattern"])}`;
    case "minimum":
    case "maximum":
      return `must be ${String(params["comparison"])} ${String(params["limit"])}`;
    case "minItems":
      return `must have at least ${String(params["limit"])} item${params["limit"] === 1 ? "" : "s"}`;
    case "maxItems":
      return `must have at most ${String(params["limit"])} items`;
    case "uniqueItems":
      return `must not repeat an item (items ${String(params["j"])} and ${String(params["i"])} are the same)`;
    case "minProperties":
      return "must name at least one field to change";
    default:
      return error.message ?? "is not valid";
  }
}

/** The JSON pointer of the field an ajv error is about (the missing or unknown property included). */
function pointerOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const escapeToken = (name: string): string => name.replaceAll("~", "~0").replaceAll("/", "~1");
  if (error.keyword === "required") return `${error.instancePath}/${escapeToken(String(params["missingProperty"]))}`;
  if (error.keyword === "additionalProperties") return `${error.instancePath}/${escapeToken(String(params["additionalProperty"]))}`;
  return error.instancePath;
}

function fieldErrors(
  errors: readonly ErrorObject[] | null | undefined,
  toField: (pointer: string) => string,
  unknownName: string,
): ProblemFieldError[] {
  const seen = new Set<string>();
  const result: ProblemFieldError[] = [];
  for (const error of errors ?? []) {
    const item = { field: toField(pointerOf(error)), message: messageOf(error, unknownName) };
    const key = `${item.field}\n${item.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(item);
  }
  return result;
}

function objectSchema(parameters: Readonly<Record<string, ParameterDefinition>>): JsonSchema {
  const required = Object.entries(parameters)
    .filter(([, parameter]) => parameter.required === true)
    .map(([name]) => name);
  return {
    type: "object",
    properties: Object.fromEntries(Object.entries(parameters).map(([name, parameter]) => [name, parameter.schema])),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/** The JSON type a parameter's schema (or the component it references) declares. */
function declaredType(schema: JsonSchema): unknown {
  const target = schema["$ref"];
  if (typeof target === "string" && target.startsWith(COMPONENT_PREFIX)) {
    const component = (analyticsSchemas as Readonly<Record<string, JsonSchema>>)[target.slice(COMPONENT_PREFIX.length)];
    return component?.["type"];
  }
  return schema["type"];
}

/**
 * Query values are text; a parameter declared `integer` or `boolean` is converted only from its
 * exact spelling (`42`, `true`, `false`), so `0x10` or `1e2` are refused rather than guessed at.
 */
function convert(value: string, schema: JsonSchema | undefined): unknown {
  if (schema === undefined) return value;
  // RFC 9562 §4: UUIDs compare case-insensitively; the service issues them lower-case.
  if (schema["format"] === "uuid") return value.toLowerCase();
  const type = declaredType(schema);
  if (type === "integer" && /^-?\d{1,15}$/.test(value)) return Number(value);
  if (type === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** The validated input of a request, or the field errors that refuse it. */
export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly ProblemFieldError[] };

/** The validators of one operation. */
export interface OperationValidators {
  /** The path parameters (UUIDs lower-cased), or `undefined` when one does not match its schema (answered 404). */
  params(params: Readonly<Record<string, string>>): Readonly<Record<string, string>> | undefined;
  /** The query as typed values, or every invalid, repeated or unknown parameter. */
  query(search: URLSearchParams): Checked<Readonly<Record<string, unknown>>>;
  /** The body, or every invalid field as a JSON pointer; `undefined` (no body) when one is required is refused. */
  body(body: unknown): Checked<unknown>;
}

/** Compiles (once per process) the validators of `operation`. */
export function operationValidators(operation: OperationDefinition): OperationValidators {
  const paramsSchema = objectSchema(operation.pathParameters ?? {});
  const validateParams = compile(`${operation.operationId}:params`, paramsSchema);
  const queryParameters = operation.query ?? {};
  const validateQuery = compile(`${operation.operationId}:query`, objectSchema(queryParameters));
  const validateBody = operation.body ? compile(`${operation.operationId}:body`, operation.body.schema) : undefined;
  return {
    params(params) {
      const pathParameters = operation.pathParameters ?? {};
      const values: Record<string, string> = {};
      for (const [name, value] of Object.entries(params)) {
        values[name] = pathParameters[name]?.schema["format"] === "uuid" ? value.toLowerCase() : value;
      }
      return validateParams(values) ? values : undefined;
    },
    query(search) {
      // Without a prototype, `?__proto__=x` becomes a key like any other and is refused as unknown;
      // on `{}` the assignment would be swallowed by the prototype setter and the parameter ignored.
      const values = Object.create(null) as Record<string, unknown>;
      const repeated: ProblemFieldError[] = [];
      for (const name of new Set(search.keys())) {
        const all = search.getAll(name);
        if (all.length > 1) repeated.push({ field: name, message: "is given more than once; give it once" });
        values[name] = convert(all[0] ?? "", queryParameters[name]?.schema);
      }
      const valid = validateQuery(values);
      const errors = [...repeated, ...(valid ? [] : fieldErrors(validateQuery.errors, (pointer) => pointer.slice(1), "query parameter"))];
      return errors.length === 0 ? { ok: true, value: values } : { ok: false, errors };
    },
    body(body) {
      if (validateBody === undefined) return { ok: true, value: undefined };
      if (body === undefined)
        return { ok: false, errors: [{ field: "", message: "is required: send a JSON object with Content-Type: application/json" }] };
      return validateBody(body)
        ? { ok: true, value: body }
        : { ok: false, errors: fieldErrors(validateBody.errors, (pointer) => pointer, "field") };
    },
  };
}

/**
 * Checks `body` against what `operation` documents for `status` in `mediaType`: the success
 * schema, or the problem schema for a documented problem status (or 500 and 503, every
 * operation's default). `documented: false` when the operation does not document that response at all. For
 * tests, and for clients that hold the service to its own description.
 */
export function checkResponse(
  operation: OperationDefinition,
  status: number,
  mediaType: string,
  body: unknown,
): { readonly documented: boolean; readonly errors: readonly ProblemFieldError[] } {
  const success = operation.responses[status];
  const isProblem = success === undefined && (status === 500 || status === 503 || problemStatuses(operation)[status] !== undefined);
  const schema =
    success !== undefined ? success.content?.[mediaType] : isProblem && mediaType === PROBLEM_TYPE ? ref("Problem") : undefined;
  if (schema === undefined) return { documented: success !== undefined && success.content === undefined && body === undefined, errors: [] };
  const validate = compile(`${operation.operationId}:response:${status}:${mediaType}`, schema);
  return validate(body)
    ? { documented: true, errors: [] }
    : { documented: true, errors: fieldErrors(validate.errors, (pointer) => pointer, "field") };
}
