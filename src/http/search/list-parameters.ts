/**
 * The list parameters of RFC 7644 §3.4.2 and RFC 9865, read from a GET query string or a
 * `POST /.search` body (RFC 7644 §3.4.3) into one shape, names case-insensitively.
 */
import { ScimType, badRequest } from "../../errors.js";
import { describeJson, isPlainObject } from "../../scim/schema/normalize-value.js";

/** The raw list parameters, as the client sent them. */
export interface ListParameters {
  readonly filter?: string;
  readonly sortBy?: string;
  readonly sortOrder?: string;
  readonly startIndex?: number;
  readonly count?: number;
  /** RFC 9865: present (even empty, which asks for the first page) selects cursor paging. */
  readonly cursor?: string;
  readonly attributes?: readonly string[];
  readonly excludedAttributes?: readonly string[];
}

export const SEARCH_REQUEST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:SearchRequest";

const names = ["filter", "sortBy", "sortOrder", "startIndex", "count", "cursor", "attributes", "excludedAttributes"] as const;
type Name = (typeof names)[number];
const byLowerName = new Map<string, Name>(names.map((name) => [name.toLowerCase(), name]));

function invalid(detail: string): never {
  throw badRequest(ScimType.invalidValue, detail);
}

function integer(name: string, value: unknown): number {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^\s*[-+]?\d{1,15}\s*$/.test(value)) return Number.parseInt(value, 10);
  if (typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value)) return value.trim().startsWith("-") ? -Infinity : Infinity;
  return invalid(`"${name}" must be an integer; got ${describeJson(value)}.`);
}

function text(name: string, value: unknown): string {
  return typeof value === "string" ? value : invalid(`"${name}" must be a string.`);
}

function attributeList(name: string, value: unknown): string[] {
  const parts = Array.isArray(value) ? value.map((item) => text(name, item)) : text(name, value).split(",");
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

/** The parameter `name` converted, `undefined` when it was not given (or given as null). */
function readParameter<T>(found: ReadonlyMap<Name, unknown>, name: Name, convert: (name: string, value: unknown) => T): T | undefined {
  return found.has(name) && found.get(name) !== null ? convert(name, found.get(name)) : undefined;
}

function assemble(entries: Iterable<readonly [string, unknown]>): ListParameters {
  const found = new Map<Name, unknown>();
  for (const [key, value] of entries) {
    const name = byLowerName.get(key.toLowerCase());
    if (!name) continue;
    if (found.has(name)) invalid(`"${name}" is given more than once.`);
    found.set(name, value);
  }
  const filter = readParameter(found, "filter", text);
  return {
    ...(filter === undefined || filter.trim() === "" ? {} : { filter }),
    ...optional("sortBy", readParameter(found, "sortBy", text)),
    ...optional("sortOrder", readParameter(found, "sortOrder", text)),
    ...optional("startIndex", readParameter(found, "startIndex", integer)),
    ...optional("count", readParameter(found, "count", integer)),
    ...optional("cursor", readParameter(found, "cursor", text)),
    ...optional("attributes", readParameter(found, "attributes", attributeList)),
    ...optional("excludedAttributes", readParameter(found, "excludedAttributes", attributeList)),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Parameters from a URL query string (`?filter=…&count=10`). */
export function listParametersFromQuery(query: URLSearchParams): ListParameters {
  return assemble(query.entries());
}

/** Parameters from a `POST /.search` body. */
export function listParametersFromBody(body: unknown): ListParameters {
  if (body === undefined) return {};
  if (!isPlainObject(body)) throw badRequest(ScimType.invalidSyntax, "The search request body must be a JSON object (RFC 7644 §3.4.3).");
  // RFC 7644 §3.4.3: the body is a SearchRequest; like /Bulk, tolerate a missing schemas, not a wrong one.
  const schemas = Object.entries(body).find(([key]) => key.toLowerCase() === "schemas")?.[1];
  if (
    schemas !== undefined &&
    !(Array.isArray(schemas) && schemas.some((urn) => typeof urn === "string" && urn.toLowerCase() === SEARCH_REQUEST_SCHEMA.toLowerCase()))
  ) {
    throw badRequest(ScimType.invalidSyntax, `"schemas" must contain ${SEARCH_REQUEST_SCHEMA}.`);
  }
  return assemble(Object.entries(body));
}

/** Only `attributes` and `excludedAttributes`, for single-resource requests (RFC 7644 §3.9). */
export function projectionParameters(query: URLSearchParams): Pick<ListParameters, "attributes" | "excludedAttributes"> {
  // The common case, a bare `GET /Users/{id}`: nothing to read.
  if (query.size === 0) return {};
  const { attributes, excludedAttributes } = assemble(
    [...query.entries()].filter(([key]) => ["attributes", "excludedattributes"].includes(key.toLowerCase())),
  );
  return { ...optional("attributes", attributes), ...optional("excludedAttributes", excludedAttributes) };
}
