/**
 * The router's side of the audit trail: turns each write attempt of an authenticated client into
 * an `AuditEntry` and hands it to the host's `AuditSink` before the response goes out. Successes
 * are recorded by the routes, failures by one error middleware in front of the error handler (so
 * a body the parser refused counts as much as a write the store refused), and the operations of
 * `/Bulk` one by one as they finish.
 */
import type { ErrorRequestHandler, Request, Response } from "express";
import type { AuditEntry, AuditOperation, AuditSink } from "../../audit/audit-sink.js";

/** An entry of the SCIM router. */
type ScimAuditEntry = AuditEntry<AuditOperation>;
import { auditedId, handToSink, MAX_AUDITED_ID_LENGTH } from "../../audit/hand-to-sink.js";
import { isScimError } from "../../errors.js";
import { translateRequestError } from "../error-rendering/error-handler.js";
import type { TypeHandler } from "../resource-service/type-handler.js";
import type { BulkOperationOutcome } from "../bulk/run-bulk.js";
import type { ScimRequestContext } from "../request-context/scim-request-context.js";

const OPERATIONS: ReadonlyMap<string, AuditOperation> = new Map([
  ["POST", "create"],
  ["PUT", "replace"],
  ["PATCH", "patch"],
  ["DELETE", "delete"],
]);

/** Records the writes of one router. */
export interface WriteAuditor {
  /** Records a write a resource route completed; the route awaits it before responding. */
  succeeded(response: Response, operation: AuditOperation, resourceType: string, resourceId: string, status: number): Promise<void>;
  /**
   * Starts the trail of one `/Bulk` request: `observe` is `runBulk`'s observer, `settled` resolves
   * once every operation observed so far has been handed to the sink.
   */
  bulk(response: Response): { readonly observe: (outcome: BulkOperationOutcome) => void; settled(): Promise<void> };
  /** Error middleware: records the failure of a write request, then passes the error on. */
  readonly failed: ErrorRequestHandler;
}

/** The context of an authenticated request, or undefined before authentication succeeded. */
function authenticated(response: Response): ScimRequestContext | undefined {
  const context = (response.locals as { scim?: ScimRequestContext }).scim;
  return context?.principal === undefined ? undefined : context;
}

function decodedId(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  try {
    return auditedId(decodeURIComponent(raw));
  } catch {
    return undefined;
  }
}

function statusOf(error: unknown): { readonly status: number; readonly scimType?: string } {
  const scimError = isScimError(error) ? error : translateRequestError(error);
  if (!scimError) return { status: 500 };
  return scimError.scimType === undefined ? { status: scimError.status } : { status: scimError.status, scimType: scimError.scimType };
}

/**
 * The auditor of a router over the resource types `types`, handing entries to `sink` and its
 * failures to `onError` (a failing sink never fails the request: the write is already decided).
 */
export function createWriteAuditor(
  sink: AuditSink,
  types: Iterable<TypeHandler>,
  onError: (error: unknown, request: Request | undefined) => void,
): WriteAuditor {
  const typeByEndpoint = new Map<string, string>();
  // Express matches routes case-insensitively by default, so `/users` reached the User routes.
  for (const type of types) typeByEndpoint.set(type.schema.resourceType.endpoint.toLowerCase(), type.id);
  const recorded = new WeakSet<Response>();

  const keep = (entry: ScimAuditEntry, request: Request | undefined): Promise<void> =>
    handToSink(sink, entry, (error) => onError(error, request));

  const base = (context: ScimRequestContext): Pick<AuditEntry, "orgId" | "tokenId" | "at"> => {
    const tokenId = context.principal?.tokenId;
    return { orgId: context.orgId, ...(tokenId === undefined ? {} : { tokenId }), at: new Date().toISOString() };
  };

  /** The resource type and id a path such as `/Users/2819c223` names. */
  const target = (path: string): { readonly resourceType?: string; readonly id?: string; readonly segments: number } => {
    const [, endpoint, id, ...rest] = path.split("/");
    const resourceType = typeByEndpoint.get(`/${endpoint ?? ""}`.toLowerCase());
    const decoded = decodedId(id);
    return {
      ...(resourceType === undefined ? {} : { resourceType }),
      ...(decoded === undefined ? {} : { id: decoded }),
      segments: id === undefined || id === "" ? 1 : 2 + rest.length,
    };
  };

  const bulkEntry = (context: ScimRequestContext, outcome: BulkOperationOutcome): ScimAuditEntry | undefined => {
    const operation = OPERATIONS.get(outcome.method);
    // Not a write: a bulk operation with another method only ever fails validation.
    if (operation === undefined) return undefined;
    const named = typeof outcome.path === "string" ? target(outcome.path) : { segments: 0 };
    const success = outcome.status >= 200 && outcome.status < 300;
    // A successful create's id is in its location; any other operation's is in its path.
    const id =
      success && outcome.location !== undefined ? decodedId(outcome.location.slice(outcome.location.lastIndexOf("/") + 1)) : named.id;
    return {
      ...base(context),
      operation,
      ...(named.resourceType === undefined ? {} : { resourceType: named.resourceType }),
      ...(id === undefined || id.startsWith("bulkId:") ? {} : { resourceId: id }),
      outcome: success ? "success" : "failure",
      status: outcome.status,
      ...(outcome.scimType === undefined ? {} : { scimType: outcome.scimType }),
      via: "bulk",
      ...(outcome.bulkId === undefined ? {} : { bulkId: outcome.bulkId.slice(0, MAX_AUDITED_ID_LENGTH) }),
    };
  };

  const failedEntry = (request: Request, context: ScimRequestContext, error: unknown): ScimAuditEntry | undefined => {
    const { status, scimType } = statusOf(error);
    // Refused for load, not judged as a write; recording each would let a flood write to the sink.
    if (status === 429) return undefined;
    const failure = { outcome: "failure" as const, status, ...(scimType === undefined ? {} : { scimType }) };
    if (request.method === "POST" && request.path.toLowerCase() === "/bulk") {
      return { ...base(context), operation: "bulk", ...failure, via: "bulk" };
    }
    const operation = OPERATIONS.get(request.method);
    if (operation === undefined) return undefined;
    const named = target(request.path);
    if (named.resourceType === undefined) return undefined;
    // Only the writes the routes serve: POST to a collection, the others to one resource.
    const shape = operation === "create" ? named.segments === 1 : named.segments === 2;
    if (!shape) return undefined;
    return {
      ...base(context),
      operation,
      resourceType: named.resourceType,
      ...(operation === "create" || named.id === undefined ? {} : { resourceId: named.id }),
      ...failure,
      via: "request",
    };
  };

  return {
    async succeeded(response, operation, resourceType, resourceId, status) {
      const context = authenticated(response);
      if (context === undefined) return;
      recorded.add(response);
      await keep({ ...base(context), operation, resourceType, resourceId, outcome: "success", status, via: "request" }, undefined);
    },

    bulk(response) {
      const context = authenticated(response);
      const pending: Promise<void>[] = [];
      return {
        observe(outcome) {
          // Once an operation has run, the request's outcome is its operations', not one of its own.
          recorded.add(response);
          const entry = context === undefined ? undefined : bulkEntry(context, outcome);
          // Handed over as each operation finishes, so the sink works alongside the later ones.
          if (entry !== undefined) pending.push(keep(entry, undefined));
        },
        async settled() {
          await Promise.all(pending);
        },
      };
    },

    failed(error, request, response, next) {
      const context = authenticated(response);
      const entry = context === undefined || recorded.has(response) ? undefined : failedEntry(request, context, error);
      if (entry === undefined) {
        next(error);
        return;
      }
      recorded.add(response);
      void keep(entry, request).then(() => next(error));
    },
  };
}
