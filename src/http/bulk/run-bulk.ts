/**
 * `POST /Bulk` (RFC 7644 §3.7): many writes in one request, each run through the same resource
 * service as its single-request form. `bulkId:` references resolve in any order (RFC 7644 §3.7.2):
 * the references form a dependency graph, built in one pass over the request, and operations run
 * lowest index first among those whose references have all been created — one pass over the
 * graph, however the references chain (architecture §4b). References that can never resolve (circular,
 * unknown, or to a failed operation) fail with 409 (RFC 7644 §3.7.1). The run pauses for the event
 * loop between operations once it has held it for a time slice.
 */
import { eventLoopSlice, pauseIfDue } from "../../event-loop-slice.js";
import { type ScimError, ScimType, badRequest, isScimError, scimError } from "../../errors.js";
import { isPlainObject, type ScimObject } from "../../scim/schema/normalize-value.js";
import { entityTag } from "../../store/resource-view.js";
import { createIndexHeap } from "./index-heap.js";
import { resourceLocation } from "../resource-service/render-resource.js";
import type { ResourceService, ServiceContext } from "../resource-service/resource-service.js";
import type { TypeHandler } from "../resource-service/type-handler.js";

export const BULK_REQUEST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";
export const BULK_RESPONSE_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkResponse";

const BULK_ID_PREFIX = "bulkId:";
// How deep `bulkId:` references are looked for and substituted: far beyond any resource's own
// nesting, and short of the call stack, which a client's deeply nested `data` would exhaust.
const MAX_REFERENCE_DEPTH = 64;
const METHODS = ["POST", "PUT", "PATCH", "DELETE"] as const;
type BulkMethod = (typeof METHODS)[number];

interface BulkOperation {
  readonly index: number;
  readonly method: BulkMethod | string;
  readonly bulkId?: string;
  readonly version?: string;
  readonly path: unknown;
  readonly data: unknown;
}

/** One entry of the BulkResponse `Operations`. */
type BulkResult = ScimObject;

/** What one operation of a bulk request came to, for an observer such as the audit trail. */
export interface BulkOperationOutcome {
  /** The method as sent, upper-cased (not necessarily a valid one). */
  readonly method: string;
  readonly bulkId?: string;
  /** The operation's path with the `bulkId:` references resolved so far; whatever the client sent. */
  readonly path: unknown;
  /** The operation's HTTP status. */
  readonly status: number;
  /** The resource's URI, when the operation succeeded. */
  readonly location?: string;
  /** The RFC 7644 §3.12 scimType of a failure, when it has one. */
  readonly scimType?: string;
}

function outcomeOf(operation: BulkOperation, path: unknown, result: BulkResult): BulkOperationOutcome {
  const response = result["response"];
  const scimType = isPlainObject(response) ? response["scimType"] : undefined;
  const location = result["location"];
  return {
    method: operation.method,
    ...(operation.bulkId === undefined ? {} : { bulkId: operation.bulkId }),
    path,
    status: Number(result["status"]),
    ...(response === undefined && typeof location === "string" ? { location } : {}),
    ...(typeof scimType === "string" ? { scimType } : {}),
  };
}

function field(object: ScimObject, name: string): unknown {
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : object[key];
}

/** Every `bulkId:` reference in an operation's path and data. */
function references(value: unknown, found: Set<string>, depth = 0): Set<string> {
  if (depth > MAX_REFERENCE_DEPTH) return found;
  if (typeof value === "string") {
    if (value.startsWith(BULK_ID_PREFIX)) found.add(value.slice(BULK_ID_PREFIX.length));
    else {
      // A path such as /Groups/bulkId:qwerty references it too.
      const at = value.indexOf(`/${BULK_ID_PREFIX}`);
      if (at !== -1) found.add(value.slice(at + 1 + BULK_ID_PREFIX.length));
    }
  } else if (Array.isArray(value)) {
    for (const item of value) references(item, found, depth + 1);
  } else if (isPlainObject(value)) {
    for (const item of Object.values(value)) references(item, found, depth + 1);
  }
  return found;
}

/** `value` with its `bulkId:` references replaced by ids, down to the depth `references` searches. */
function substitute(value: unknown, ids: ReadonlyMap<string, string>, depth = 0): unknown {
  if (depth > MAX_REFERENCE_DEPTH) return value;
  if (typeof value === "string") {
    if (value.startsWith(BULK_ID_PREFIX)) return ids.get(value.slice(BULK_ID_PREFIX.length)) ?? value;
    const at = value.indexOf(`/${BULK_ID_PREFIX}`);
    if (at !== -1) {
      const id = ids.get(value.slice(at + 1 + BULK_ID_PREFIX.length));
      return id === undefined ? value : `${value.slice(0, at + 1)}${id}`;
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, ids, depth + 1));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, ids, depth + 1)]));
  return value;
}

function parseOperations(body: unknown, maxOperations: number): { operations: BulkOperation[]; failOnErrors: number | undefined } {
  if (!isPlainObject(body)) throw badRequest(ScimType.invalidSyntax, "The bulk request body must be a JSON object (RFC 7644 §3.7).");
  const schemas = field(body, "schemas");
  if (
    schemas !== undefined &&
    !(Array.isArray(schemas) && schemas.some((urn) => typeof urn === "string" && urn.toLowerCase() === BULK_REQUEST_SCHEMA.toLowerCase()))
  ) {
    throw badRequest(ScimType.invalidSyntax, `"schemas" must contain ${BULK_REQUEST_SCHEMA}.`);
  }
  const list = field(body, "Operations");
  if (!Array.isArray(list)) throw badRequest(ScimType.invalidSyntax, `"Operations" must be an array of bulk operations.`);
  if (list.length > maxOperations) {
    // RFC 7644 §3.7.4: a request over the advertised limit is refused whole with 413.
    throw scimError("payloadTooLarge", `The bulk request has ${list.length} operations; the maximum is ${maxOperations} (maxOperations).`);
  }
  const failOnErrors = field(body, "failOnErrors");
  if (failOnErrors !== undefined && !(typeof failOnErrors === "number" && Number.isInteger(failOnErrors) && failOnErrors >= 1)) {
    throw badRequest(ScimType.invalidValue, `"failOnErrors" must be an integer of at least 1.`);
  }
  const operations = list.map((raw, index): BulkOperation => {
    const entry = isPlainObject(raw) ? raw : {};
    const method = field(entry, "method");
    const bulkId = field(entry, "bulkId");
    const version = field(entry, "version");
    return {
      index,
      method: typeof method === "string" ? method.toUpperCase() : "",
      ...(typeof bulkId === "string" ? { bulkId } : {}),
      ...(typeof version === "string" ? { version } : {}),
      path: field(entry, "path"),
      data: field(entry, "data"),
    };
  });
  return { operations, failOnErrors: failOnErrors as number | undefined };
}

function errorResult(operation: BulkOperation, error: ScimError): BulkResult {
  return {
    method: operation.method,
    ...(operation.bulkId === undefined ? {} : { bulkId: operation.bulkId }),
    status: String(error.status),
    response: error.toJSON(),
  };
}

function locate(service: ResourceService, path: string): { type: TypeHandler; id: string | undefined } {
  const [, endpoint, id, ...rest] = path.split("/");
  const type = [...service.handlers.values()].find(
    (handler) => handler.schema.resourceType.endpoint.toLowerCase() === `/${endpoint ?? ""}`.toLowerCase(),
  );
  if (!type || rest.length > 0 || id === "") throw scimError("notFound", `No resource endpoint at ${JSON.stringify(path)}.`);
  if (id === undefined) return { type, id };
  try {
    return { type, id: decodeURIComponent(id) };
  } catch {
    // A malformed %-escape (RFC 3986 §2.1) is the client's: answered as the same path sent on its own is.
    throw badRequest(ScimType.invalidSyntax, `The path ${JSON.stringify(path)} is not correctly %-encoded.`);
  }
}

async function execute(
  service: ResourceService,
  context: ServiceContext,
  operation: BulkOperation,
  path: string,
  data: unknown,
): Promise<BulkResult> {
  const method = operation.method as BulkMethod;
  const { type, id } = locate(service, path);
  const base = { method, ...(operation.bulkId === undefined ? {} : { bulkId: operation.bulkId }) };
  if (method === "POST") {
    if (id !== undefined)
      throw scimError(
        "methodNotAllowed",
        `POST goes to a resource type endpoint such as ${type.schema.resourceType.endpoint}, not to a resource.`,
      );
    const outcome = await service.create({
      context,
      resourceType: type.id,
      body: data,
      ...(operation.version === undefined ? {} : { ifMatch: operation.version }),
      members: false,
    });
    return {
      ...base,
      location: resourceLocation(context.baseUrl, type.schema.resourceType.endpoint, outcome.stored.id),
      version: entityTag(outcome.stored.version),
      // A POST that linked an existing user (`existingUsers`) created nothing.
      status: outcome.linked ? "200" : "201",
    };
  }
  if (id === undefined)
    throw scimError("methodNotAllowed", `${method} needs a resource path such as ${type.schema.resourceType.endpoint}/{id}.`);
  const location = resourceLocation(context.baseUrl, type.schema.resourceType.endpoint, id);
  if (method === "DELETE") {
    await service.delete({ context, resourceType: type.id, id, ifMatch: operation.version });
    return { ...base, location, status: "204" };
  }
  const request = { context, resourceType: type.id, id, body: data, ifMatch: operation.version, members: false };
  const outcome = method === "PUT" ? await service.replace(request) : await service.patch(request);
  return { ...base, location, version: entityTag(outcome.stored.version), status: "200" };
}

function validate(operation: BulkOperation, seenBulkIds: Set<string>): ScimError | undefined {
  if (!(METHODS as readonly string[]).includes(operation.method)) {
    return badRequest(ScimType.invalidSyntax, `Operations[${operation.index}].method must be one of ${METHODS.join(", ")}.`);
  }
  if (typeof operation.path !== "string" || !operation.path.startsWith("/")) {
    return badRequest(ScimType.invalidSyntax, `Operations[${operation.index}].path must be a path such as "/Users" or "/Users/{id}".`);
  }
  if (operation.method === "POST" && operation.bulkId === undefined) {
    // RFC 7644 §3.7: bulkId is REQUIRED for POST, so the client can find the created resource.
    return badRequest(ScimType.invalidSyntax, `Operations[${operation.index}].bulkId is required for POST.`);
  }
  if (operation.method !== "DELETE" && !isPlainObject(operation.data)) {
    return badRequest(ScimType.invalidSyntax, `Operations[${operation.index}].data must be a JSON object for ${operation.method}.`);
  }
  if (operation.bulkId !== undefined) {
    if (seenBulkIds.has(operation.bulkId))
      return scimError("duplicateBulkId", `Operations[${operation.index}].bulkId ${JSON.stringify(operation.bulkId)} is used twice.`);
    seenBulkIds.add(operation.bulkId);
  }
  return undefined;
}

/** Runs a bulk request and returns the BulkResponse body. */
export async function runBulk(
  service: ResourceService,
  context: ServiceContext,
  body: unknown,
  limits: { readonly maxOperations: number },
  onUnexpected: (error: unknown) => void,
  observe?: (outcome: BulkOperationOutcome) => void,
): Promise<ScimObject> {
  const { operations, failOnErrors } = parseOperations(body, limits.maxOperations);
  const results = new Map<number, BulkResult>();
  const created = new Map<string, string>();
  const failedBulkIds = new Set<string>();
  let errors = 0;
  const record = (operation: BulkOperation, result: BulkResult): void => {
    results.set(operation.index, result);
    observe?.(outcomeOf(operation, typeof operation.path === "string" ? substitute(operation.path, created) : operation.path, result));
    if (result["response"] !== undefined) {
      errors += 1;
      if (operation.bulkId !== undefined) failedBulkIds.add(operation.bulkId);
    }
  };

  const seen = new Set<string>();
  // Malformed operations fail where they stand in the request, so that failOnErrors counts them
  // in order: the valid operations before one still run, and none after the limit does.
  const malformed = new Map<number, ScimError>();
  for (const operation of operations) {
    const invalid = validate(operation, seen);
    if (invalid) malformed.set(operation.index, invalid);
  }
  const stop = (): boolean => failOnErrors !== undefined && errors >= failOnErrors;
  const defined = new Set(
    operations.flatMap((operation) =>
      !malformed.has(operation.index) && operation.method === "POST" && operation.bulkId !== undefined ? [operation.bulkId] : [],
    ),
  );

  // The dependency graph: what each operation references, who waits for each bulkId, and how
  // many references each waiting operation still lacks.
  const needed = operations.map((operation) =>
    malformed.has(operation.index) ? [] : [...references([operation.path, operation.data], new Set())],
  );
  const waiters = new Map<string, number[]>();
  const lacking = new Map<number, number>();
  const ready = createIndexHeap();
  const queued = new Set<number>();
  const enqueue = (index: number): void => {
    if (queued.has(index)) return;
    queued.add(index);
    ready.push(index);
  };
  for (const operation of operations) {
    const referenced = needed[operation.index] ?? [];
    // An unknown reference can never resolve: the operation fails when its turn comes.
    if (referenced.length === 0 || referenced.some((bulkId) => !defined.has(bulkId))) {
      enqueue(operation.index);
      continue;
    }
    lacking.set(operation.index, referenced.length);
    for (const bulkId of referenced) {
      const list = waiters.get(bulkId);
      if (list) list.push(operation.index);
      else waiters.set(bulkId, [operation.index]);
    }
  }
  /** The operations waiting for `bulkId` after its POST ran: created, one reference fewer; failed, their turn to fail. */
  const settle = (bulkId: string, succeeded: boolean): void => {
    for (const index of waiters.get(bulkId) ?? []) {
      const left = (lacking.get(index) ?? 0) - 1;
      lacking.set(index, left);
      if (left <= 0 || !succeeded) enqueue(index);
    }
    waiters.delete(bulkId);
  };

  const slice = eventLoopSlice();
  const done = new Set<number>();
  for (let index = ready.pop(); index !== undefined && !stop(); index = ready.pop()) {
    const operation = operations[index] as BulkOperation;
    done.add(index);
    const invalid = malformed.get(index);
    if (invalid) {
      record(operation, errorResult(operation, invalid));
      continue;
    }
    const broken = (needed[index] ?? []).find((bulkId) => failedBulkIds.has(bulkId) || !defined.has(bulkId));
    if (broken !== undefined) {
      record(
        operation,
        errorResult(
          operation,
          scimError("unresolvedBulkId", `bulkId:${broken} cannot be resolved: no successful POST in this request has that bulkId.`),
        ),
      );
      if (operation.method === "POST" && operation.bulkId !== undefined) settle(operation.bulkId, false);
      continue;
    }
    try {
      const result = await execute(
        service,
        context,
        operation,
        substitute(operation.path, created) as string,
        substitute(operation.data, created),
      );
      if (operation.method === "POST" && operation.bulkId !== undefined && typeof result["location"] === "string") {
        created.set(operation.bulkId, decodeURIComponent(result["location"].slice(result["location"].lastIndexOf("/") + 1)));
      }
      record(operation, result);
    } catch (error) {
      if (!isScimError(error)) onUnexpected(error);
      const failure = isScimError(error) ? error : scimError("internal", "The operation failed inside the service. It has been reported.");
      record(operation, errorResult(operation, failure));
    }
    if (operation.method === "POST" && operation.bulkId !== undefined) settle(operation.bulkId, created.has(operation.bulkId));
    // Between operations, not inside one: each runs as its single-request form would.
    await pauseIfDue(slice);
  }
  // What never became ready waits, directly or through others, on a cycle (RFC 7644 §3.7.1).
  for (const operation of operations) {
    if (stop()) break;
    if (done.has(operation.index)) continue;
    record(
      operation,
      errorResult(
        operation,
        scimError("unresolvedBulkId", "Circular bulkId references: these operations each wait for another to create a resource first."),
      ),
    );
  }
  return {
    schemas: [BULK_RESPONSE_SCHEMA],
    Operations: [...results.entries()].sort(([a], [b]) => a - b).map(([, result]) => result),
  };
}
