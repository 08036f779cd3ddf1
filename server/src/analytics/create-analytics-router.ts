/**
 * `createAnalyticsRouter`: the Express router of the analytics interface (spec §4.6, issue 6).
 * Its routes are the operation definitions, registered in order; each request is authenticated
 * with an analytics API key, authorized by the operation's access, validated against the
 * operation's schemas, and handed to its handler with the caller's scope.
 */
import express, { type Request, type RequestHandler } from "express";
import { requestOrigin } from "scimkit";
import { asyncHandler } from "./async-handler.js";
import { queryOf } from "./query-of.js";
import {
  forbidden,
  invalidRequest,
  methodNotAllowed,
  notFound,
  serviceUnavailable,
  unauthorized,
  unknownEndpoint,
} from "./analytics-problem.js";
import { MOVE_RETRY_AFTER_SECONDS } from "./region-moves-view.js";
import type { AnalyticsCall, AnalyticsHandlers } from "./analytics-call.js";
import type { AnalyticsDependencies } from "./analytics-dependencies.js";
import { analyticsBodyParser } from "./analytics-body-parser.js";
import { analyticsWriteAuditor, isAuditedOperation } from "./analytics-write-auditor.js";
import type { AnalyticsRouterOptions } from "./analytics-router-options.js";
import { verifyApiKey, type ApiKeyCaller } from "./api-keys.js";
import { isSetupSession, verifySetupSession } from "./setup-links.js";
import { callerScope } from "./caller-scope.js";
import { limitAnalyticsRate } from "./limit-analytics-rate.js";
import { analyticsOperations } from "./definitions/analytics-operations.js";
import type { Access, OperationDefinition } from "./definitions/operation-definition.js";
import { operationValidators } from "./definitions/schema-validators.js";
import { nextCursorOf, pageRequestOf, type CursorBinding } from "./page-cursor.js";
import { problemHandler } from "./problem-handler.js";
import { adminUserHandlers } from "./routes/admin-user-routes.js";
import { campaignHandlers } from "./routes/campaign-routes.js";
import { documentHandlers } from "./routes/document-routes.js";
import { operationHandlers } from "./routes/operation-routes.js";
import { organizationHandlers } from "./routes/organization-routes.js";
import { requestLogHandlers } from "./routes/request-log-routes.js";
import { simulationHandlers } from "./routes/simulation-routes.js";
import { tokenHandlers } from "./routes/token-routes.js";
import { userHandlers } from "./routes/user-routes.js";
import { regionHandlers } from "./routes/region-routes.js";
import { setupLinkHandlers } from "./routes/setup-link-routes.js";
import { directoryHandlers } from "./routes/directory-routes.js";
import { eventReceiverHandlers } from "./routes/event-receiver-routes.js";
import { eventSigningKeyHandlers } from "./routes/event-signing-key-routes.js";
import type { AnalyticsRouter } from "./analytics-router.js";
import { reportWorker } from "./report-worker.js";
import { sendJson } from "./send-json.js";

export type { AnalyticsRouterOptions, Invitation, StaticTokenDescription } from "./analytics-router-options.js";
export type { AnalyticsRouter } from "./analytics-router.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const BEARER = /^\s*bearer\s+([^\s]+)\s*$/i;

function defaultOnError(error: unknown): void {
  console.error("scimkit analytics: unexpected error", error);
}

/** `/organizations/{id}` → `/organizations/:id`, the form both Express 4 and 5 route. */
function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z]+)\}/g, ":$1");
}

/** Who is calling, or 401: one body whether the key is missing, unknown or its user disabled. */
async function authenticate(request: Request, dependencies: AnalyticsDependencies): Promise<ApiKeyCaller> {
  const key = BEARER.exec(request.get("authorization") ?? "")?.[1];
  if (key === undefined) throw unauthorized();
  const caller = isSetupSession(key)
    ? await verifySetupSession(dependencies.store, key, dependencies.now())
    : await verifyApiKey(dependencies.store, key);
  if (caller === undefined) throw unauthorized();
  return caller;
}

/** 403 for a known caller without the right (issue 6: a viewer only reads; some changes are the operator's). */
function authorize(access: Access, caller: ApiKeyCaller): void {
  // A setup link's session opens its organization's setup and nothing else; the setup is its alone.
  if (caller.kind === "setup" && access !== "setup") throw forbidden("A setup link opens its organization's setup page only.");
  if (access === "setup" && caller.kind !== "setup") throw forbidden("This is the setup page's: open it with a setup link.");
  if (access === "operator" && caller.kind !== "operator") throw forbidden("Only the operator key may do this.");
  if (access === "write" && caller.kind === "admin" && caller.adminUser.role !== "admin") {
    throw forbidden("This key may only read: its admin user has the role viewer.");
  }
}

/**
 * 503 for a write to an organization moving to another region, or a new child of one, which the
 * move's cleanup could not delete with it (issue 30); from memory (`RegionsView.writesRefused`).
 */
function refuseMovingWrites(regions: AnalyticsDependencies["regions"], orgId: string | undefined, body: unknown): void {
  const refused = regions?.writesRefused;
  if (refused === undefined) return;
  const parentId = (body as { parentId?: unknown } | undefined)?.parentId;
  const moving =
    (orgId === undefined ? undefined : refused.call(regions, orgId)) ??
    (typeof parentId === "string" ? refused.call(regions, parentId) : undefined);
  if (moving !== undefined) throw serviceUnavailable(moving, MOVE_RETRY_AFTER_SECONDS);
}

function stringParams(request: Request): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.params as Record<string, unknown>))
    if (typeof value === "string") result[name] = value;
  return result;
}

function positiveNumber(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`scimkit analytics: ${name} must be a positive number; got ${String(value)}.`);
  return value;
}

/** The optional steps of a chain: the rate limit and the audit, each only when the host set it. */
interface ChainExtras {
  readonly rateLimit?: RequestHandler;
  readonly audit?: (operationId: string) => RequestHandler | undefined;
}

/** The chain of one operation: authenticate, [rate limit, audit,] authorize, parse, validate, handle. */
function operationChain(
  operation: OperationDefinition,
  handlers: AnalyticsHandlers,
  dependencies: AnalyticsDependencies,
  cursorSecret: string,
  bodyParser: RequestHandler,
  extras: ChainExtras,
): RequestHandler[] {
  const validators = operationValidators(operation);
  // Known per operation, not per request: whether it writes, and whether the path's {id} is the organization written.
  const writes = operation.method !== "get";
  const writesOrganization = writes && operation.path.startsWith("/organizations/{id}");
  const handler = handlers[operation.operationId as keyof AnalyticsHandlers];
  const audit = extras.audit?.(operation.operationId);
  const chain: RequestHandler[] = [];
  if (operation.access !== "public") {
    // Authorization waits for the rate limit and the audit when either is set, so a key without
    // the right still spends its allowance and its refused write is in the trail; otherwise it
    // stays in the same step, and the chain is what it was without them.
    const separateAuthorization = extras.rateLimit !== undefined || audit !== undefined;
    // Before the body is read: a caller without a key or the right learns nothing from validation.
    chain.push(
      asyncHandler(async (request, response, next) => {
        const caller = await authenticate(request, dependencies);
        if (!separateAuthorization) authorize(operation.access, caller);
        (response.locals as { analyticsCaller?: ApiKeyCaller }).analyticsCaller = caller;
        next();
      }),
    );
    if (extras.rateLimit !== undefined) chain.push(extras.rateLimit);
    if (audit !== undefined) chain.push(audit);
    if (separateAuthorization) {
      chain.push((_request, response, next) => {
        const caller = (response.locals as { analyticsCaller?: ApiKeyCaller }).analyticsCaller;
        if (caller !== undefined) authorize(operation.access, caller);
        next();
      });
    }
  } else if (audit !== undefined) {
    chain.push(audit);
  }
  if (operation.body !== undefined) chain.push(bodyParser);
  chain.push(
    asyncHandler(async (request, response) => {
      // An id that does not match its schema names nothing that could exist.
      const params = validators.params(stringParams(request));
      if (params === undefined) throw notFound("There is no such resource: the id in the path is not one this service issues.");
      const query = validators.query(queryOf(request));
      const body = validators.body(request.body);
      const errors = [...(query.ok ? [] : query.errors), ...(body.ok ? [] : body.errors)];
      if (!query.ok || !body.ok) throw invalidRequest(errors);
      if (writes) refuseMovingWrites(dependencies.regions, writesOrganization ? params["id"] : undefined, body.value);
      const caller = (response.locals as { analyticsCaller?: ApiKeyCaller }).analyticsCaller;
      const binding: CursorBinding = { operationId: operation.operationId, params, query: query.value, secret: cursorSecret };
      const call: AnalyticsCall = {
        request,
        response,
        params,
        query: query.value,
        body: body.value,
        caller,
        scope: await callerScope(caller, dependencies.store),
        baseUrl: `${requestOrigin(request)}${request.baseUrl}`,
        page: () => pageRequestOf(binding),
        sendPage: (page, render, extra) =>
          sendJson(response, 200, { data: page.items.map(render), nextCursor: nextCursorOf(binding, page.next), ...extra }),
      };
      await handler(call);
    }),
  );
  return chain;
}

/**
 * Builds the router. Mount it at its own base path; the host server uses `/analytics/v1`.
 *
 * @example
 * const resources = await sqlStore({ sqlite: "scimkit.db" });
 * const analytics = sqlAnalyticsStore(resources);
 * const router = createAnalyticsRouter({
 *   store: analytics,
 *   scimTokens: resources.tokens,
 *   onInvitation: ({ adminUser, code }) => mailer.send(adminUser.email, code),
 * });
 * app.use("/analytics/v1", router);
 * // On shutdown, after the server stopped taking requests: report jobs are given up to another host.
 * await router.close();
 */
export function createAnalyticsRouter(options: AnalyticsRouterOptions): AnalyticsRouter {
  if (options.store === undefined || options.scimTokens === undefined)
    throw new Error("scimkit analytics: the router needs `store` and `scimTokens`.");
  const onError = options.onError ?? defaultOnError;
  const now = options.now ?? (() => new Date());
  // Claims, heartbeats, takeover and purge of report jobs; stopped by the router's close().
  const worker = reportWorker({ store: options.store, now, onError, ...(options.reports ? { reports: options.reports } : {}) });
  const dependencies: AnalyticsDependencies = {
    store: options.store,
    scimTokens: options.scimTokens,
    regions: options.regions,
    staticTokens: (orgId) => options.staticTokens?.(orgId) ?? [],
    scimBaseUrl: (orgId, request) =>
      options.scimBaseUrl?.(orgId, request) ?? `${requestOrigin(request)}/scim/Organizations/${encodeURIComponent(orgId)}/v2`,
    securityEvents: options.securityEvents,
    securityEventPollUrl: (orgId, receiverId, request) =>
      options.securityEventPollUrl?.(orgId, receiverId, request) ??
      `${requestOrigin(request)}/scim/Organizations/${encodeURIComponent(orgId)}/events/poll/${encodeURIComponent(receiverId)}`,
    securityEventKeys: options.securityEventKeys,
    securityEventJwksUrl: (orgId, request) =>
      options.securityEventJwksUrl?.(orgId, request) ??
      `${requestOrigin(request)}/scim/Organizations/${encodeURIComponent(orgId)}/events/jwks.json`,
    onInvitation: options.onInvitation,
    invitationTtlMs: positiveNumber("invitationTtlMs", options.invitationTtlMs ?? 7 * DAY_MS),
    now,
    onError,
    reports: worker.options,
    startReport(operation) {
      // After the 202 is on its way; when this process has no room, a poller (here or on another host) takes it.
      setImmediate(() => worker.kick(operation.id));
    },
  };
  const handlers: AnalyticsHandlers = {
    ...documentHandlers(),
    ...organizationHandlers(dependencies),
    ...tokenHandlers(dependencies),
    ...eventReceiverHandlers(dependencies),
    ...eventSigningKeyHandlers(dependencies),
    ...adminUserHandlers(dependencies),
    ...userHandlers(dependencies),
    ...campaignHandlers(dependencies),
    ...simulationHandlers(dependencies),
    ...operationHandlers(dependencies),
    ...requestLogHandlers(dependencies, options.requestLog),
    ...setupLinkHandlers(dependencies, options.requestLog),
    ...directoryHandlers(dependencies),
    ...regionHandlers(options.regions),
  };
  const bodyParser = analyticsBodyParser(options.bodyLimit ?? "100kb");
  const onAudit = options.onAudit;
  const extras: ChainExtras = {
    ...(options.rateLimit === undefined ? {} : { rateLimit: limitAnalyticsRate(options.rateLimit) }),
    ...(onAudit === undefined
      ? {}
      : {
          audit: (operationId: string) =>
            isAuditedOperation(operationId) ? analyticsWriteAuditor(operationId, onAudit, now, onError) : undefined,
        }),
  };
  const router = express.Router();
  const methodsByPath = new Map<string, string[]>();
  for (const operation of analyticsOperations as readonly OperationDefinition[]) {
    router[operation.method](
      expressPath(operation.path),
      ...operationChain(operation, handlers, dependencies, options.cursorSecret ?? "", bodyParser, extras),
    );
    const methods = methodsByPath.get(operation.path) ?? [];
    methods.push(operation.method.toUpperCase(), ...(operation.method === "get" ? ["HEAD"] : []));
    methodsByPath.set(operation.path, methods);
  }
  // RFC 9110 §15.5.6: a known path with another method is 405 with the methods it takes.
  for (const [path, methods] of methodsByPath) {
    router.all(expressPath(path), (request, response, next) => {
      response.setHeader("Allow", methods.join(", "));
      next(methodNotAllowed(request.method, request.path, methods));
    });
  }
  router.use((request, _response, next) => {
    next(unknownEndpoint(request.method, request.path));
  });
  router.use(problemHandler(onError));
  return Object.assign(router, { close: () => worker.close(), reportWorker: worker });
}
