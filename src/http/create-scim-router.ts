/**
 * `createScimRouter`: the Express router that makes an application a SCIM 2.0 service provider
 * for one organization per request (architecture §1). Mount it at `/scim/Organizations/:orgId/v2`.
 */
import express, { type Request, type Router } from "express";
import { inSequence } from "./express-helpers/in-sequence.js";
import { scimError } from "../errors.js";
import { createSchemaRegistry } from "../scim/schema/schema-registry.js";
import { rfc7643Profile } from "../scim/schema/resource-profile.js";
import { admitLargeBody } from "./fair-share/admit-large-body.js";
import { authenticate } from "./authentication/authenticate.js";
import { boundUnreadBody } from "./body-parsing/discard-request-body.js";
import { errorHandler } from "./error-rendering/error-handler.js";
import { expensiveWorkClassifier } from "./fair-share/expensive-work-classifier.js";
import { fairShareGate } from "./fair-share/fair-share-gate.js";
import { limitRate } from "./rate-limits/limit-rate.js";
import { createResourceService } from "./resource-service/create-resource-service.js";
import { isExistingUsersOption, resolveExistingUsers } from "./request-context/resolve-existing-users.js";
import { registerBulkRoute } from "./routes/bulk-route.js";
import { registerSchemaRoutes, registerServiceProviderConfigRoute } from "./routes/discovery-routes.js";
import { registerResourceRoutes } from "./routes/resource-routes.js";
import { registerRootSearchRoute } from "./routes/root-search-route.js";
import { assignRequestId } from "./request-log/request-id.js";
import { logRequest } from "./request-log/log-request.js";
import { secretAttributeNames } from "../request-log/redact-body.js";
import { scimBodyParser } from "./body-parsing/scim-body-parser.js";
import type { ScimEvent } from "./lifecycle-events/scim-event.js";
import { startEventRecovery } from "./lifecycle-events/event-recovery.js";
import { resolveCompatibility } from "./request-context/resolve-compatibility.js";
import { resolveFairShareGroup } from "./fair-share/resolve-fair-share-group.js";
import { resolveOrganization } from "./request-context/scim-request-context.js";
import type { ScimRouterOptions } from "./scim-router-options.js";
import { servedRegistry } from "./discovery/served-registry.js";
import { workAdmission } from "./fair-share/work-admission.js";
import { DEFAULT_WRITE_LIMITS } from "./resource-service/write-limits.js";
import { createWriteAuditor } from "./audit/write-auditor.js";

function defaultOnError(error: unknown, request: Request | undefined): void {
  console.error(`scimkit: unexpected error${request ? ` in ${request.method} ${request.originalUrl}` : ""}`, error);
}

function isDecodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** How long a request waits for its fair-share turn unless `fairShare.maxWaitMs` says otherwise. */
const DEFAULT_MAX_WAIT_MS = 10_000;

function positive(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 1) throw new Error(`scimkit: ${name} must be a positive integer; got ${String(value)}.`);
  return chosen;
}

/**
 * Builds the router.
 *
 * @example
 * const store = memoryStore();
 * const auth = createTokenStore();
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth }));
 */
export function createScimRouter(options: ScimRouterOptions): Router {
  const registry = servedRegistry(options.registry ?? createSchemaRegistry(), options.store.capabilities);
  const profile = options.profile ?? rfc7643Profile;
  const onError = options.onError ?? defaultOnError;
  const maxPageSize = positive("paging.maxPageSize", options.paging?.maxPageSize, 1000);
  const defaultPageSize = Math.min(positive("paging.defaultPageSize", options.paging?.defaultPageSize, 100), maxPageSize);
  const bulk = {
    maxOperations: positive("bulk.maxOperations", options.bulk?.maxOperations, 1000),
    maxPayloadSize: positive("bulk.maxPayloadSize", options.bulk?.maxPayloadSize, 1_048_576),
  };
  const filterLimits = {
    ...(options.filterLimits?.maxLength === undefined
      ? {}
      : { maxLength: positive("filterLimits.maxLength", options.filterLimits.maxLength, 1) }),
    ...(options.filterLimits?.maxDepth === undefined
      ? {}
      : { maxDepth: positive("filterLimits.maxDepth", options.filterLimits.maxDepth, 1) }),
  };
  const writeLimits = {
    maxPatchOperations: positive(
      "writeLimits.maxPatchOperations",
      options.writeLimits?.maxPatchOperations,
      DEFAULT_WRITE_LIMITS.maxPatchOperations,
    ),
    maxValues: positive("writeLimits.maxValues", options.writeLimits?.maxValues, DEFAULT_WRITE_LIMITS.maxValues),
    maxMembers: positive("writeLimits.maxMembers", options.writeLimits?.maxMembers, DEFAULT_WRITE_LIMITS.maxMembers),
  };
  const existingUsers = options.existingUsers ?? "conflict";
  if (!isExistingUsersOption(existingUsers)) {
    throw new Error(
      `scimkit: existingUsers must be "conflict", "link" or a function of the organization; got ${JSON.stringify(existingUsers)}.`,
    );
  }
  const onEvent = options.onEvent;
  const emit = async (event: ScimEvent): Promise<void> => {
    if (!onEvent) return;
    try {
      await onEvent(event);
    } catch (error) {
      // The write has committed; a failing listener is the host's to hear about, not the client's.
      onError(error, undefined);
    }
  };
  const eventLeaseMs = positive(
    "eventRecovery.leaseMs",
    options.eventRecovery === false ? undefined : options.eventRecovery?.leaseMs,
    60_000,
  );
  // Checked here: an unknown profile name throws when the router is built, not at the first request.
  const compatibility = resolveCompatibility(options.compatibility);
  const service = createResourceService({
    store: options.store,
    registry,
    profile,
    unknownMembers: options.unknownMembers ?? "ignore",
    filterLimits,
    writeLimits,
    defaultPageSize,
    maxPageSize,
    cursorSecret: options.cursorSecret ?? "",
    emit,
    events: {
      durable: options.durableEvents === true,
      listening: onEvent !== undefined,
      leaseMs: eventLeaseMs,
      onError: (error) => onError(error, undefined),
    },
  });
  // Events a dead process recorded but never delivered reach this process's listener (issue 20).
  if (onEvent && options.durableEvents === true && options.store.events && options.eventRecovery !== false) {
    startEventRecovery({
      outbox: options.store.events,
      emit,
      onError: (error) => onError(error, undefined),
      leaseMs: eventLeaseMs,
      intervalMs: positive("eventRecovery.intervalMs", options.eventRecovery?.intervalMs, 10_000),
      batchSize: positive("eventRecovery.batchSize", options.eventRecovery?.batchSize, 100),
    });
  }

  const router = express.Router({ mergeParams: true });
  // Each group of unconditional middleware is one layer (`inSequence`): the router's cost is per layer.
  router.use(
    inSequence([
      // First of all: every answer from here on, errors included, names its request.
      assignRequestId(),
      // A body answered unread (401, 404, 429) is read to its end by Node: only up to a bound.
      boundUnreadBody(),
      ...(options.requestLog ? [logRequest(options.requestLog, registry, secretAttributeNames(registry), onError)] : []),
      resolveOrganization(options),
    ]),
  );
  // The profile is chosen once per request: for the one route served without a token here, for
  // every other after authentication, so a request without a valid token never reaches the
  // host's function (which may read a database).
  if (compatibility) router.get("/ServiceProviderConfig", compatibility);
  registerServiceProviderConfigRoute(router, {
    ...(options.documentationUri ? { documentationUri: options.documentationUri } : {}),
    bulk,
    maxPageSize,
    defaultPageSize,
    sort: service.canSort,
    cursor: service.canCursor,
    ...(options.securityEvents ? { securityEventUris: options.securityEvents.eventUris } : {}),
  });
  const fairShare =
    options.fairShare === false
      ? undefined
      : {
          gate: options.fairShare?.gate ?? fairShareGate(),
          classifier: options.fairShare?.classifier ?? expensiveWorkClassifier(),
          maxWaitMs: positive("fairShare.maxWaitMs", options.fairShare?.maxWaitMs, DEFAULT_MAX_WAIT_MS),
        };
  const admission = workAdmission(fairShare);
  const auditor = options.onAudit ? createWriteAuditor(options.onAudit, service.handlers.values(), onError) : undefined;

  // After the rate limit, as the host's other functions: a group function may read a database.
  const grouping = fairShare && options.fairShare !== false ? resolveFairShareGroup(fairShare.gate, options.fairShare?.group) : undefined;
  const choosesExistingUsers = resolveExistingUsers(existingUsers);
  router.use(
    inSequence([
      authenticate(options.auth),
      ...(options.rateLimit ? [limitRate(options.rateLimit)] : []),
      ...(grouping ? [grouping] : []),
      // After the rate limit: a request over it never reaches the host's functions (which may read a database).
      ...(compatibility ? [compatibility] : []),
      ...(choosesExistingUsers ? [choosesExistingUsers] : []),
      // Before every body parser (Bulk's included): a large body waits for its organization's turn
      // before it is read, not after.
      ...(fairShare ? [admitLargeBody(fairShare)] : []),
    ]),
  );
  registerBulkRoute(router, service, bulk, onError, auditor, admission);
  router.use(...scimBodyParser(options.bodyLimit ?? "1mb"));
  registerSchemaRoutes(router, registry, profile);
  for (const type of service.handlers.values()) registerResourceRoutes(router, service, type, auditor, admission);
  const listConfig = {
    store: options.store,
    registry,
    filterLimits,
    defaultPageSize,
    maxPageSize,
    cursorSecret: options.cursorSecret ?? "",
    canSort: service.canSort,
    canCursor: service.canCursor,
    idsUniqueAcrossTypes: options.store.capabilities?.idsUniqueAcrossTypes !== false,
  };
  registerRootSearchRoute(router, listConfig, [...service.handlers.values()], admission);
  router.use((request, _response, next) => {
    // A malformed %-escape outside any route parameter (which Express's router refuses itself) is
    // a malformed request, not a missing endpoint.
    if (!isDecodable(request.path)) {
      next(scimError("invalidSyntax", "The URL path holds a malformed %-escape: encode it as UTF-8 percent-escapes (RFC 3986 §2.1)."));
      return;
    }
    next(scimError("notFound", `There is no SCIM endpoint for ${request.method} ${request.path}.`));
  });
  if (auditor) router.use(auditor.failed);
  router.use(errorHandler(onError));
  return router;
}
