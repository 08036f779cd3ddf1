/**
 * The app every analytics HTTP test drives: the analytics router at `/analytics/v1` and the SCIM
 * router at `/scim/Organizations/:orgId/v2` over one store — the memory stores, or in the
 * `express5-sqlite` project (`SCIMKIT_HTTP_STORE=sqlite`) an in-memory SQLite `sqlStore` with
 * `sqlAnalyticsStore` — and a request helper that holds every response to the OpenAPI document:
 * a status the operation does not document, or a body that does not match its schema, fails
 * the test that received it.
 */
import express, { type Express } from "express";
import request from "supertest";
import { expect } from "vitest";
import { activeOrganizationsOnly } from "../../src/analytics/active-organizations-only.js";
import { analyticsRecorder, type AnalyticsRecorder } from "../../src/analytics/analytics-recorder.js";
import type { Invitation, AnalyticsRouterOptions } from "../../src/analytics/analytics-router-options.js";
import type { AnalyticsStore } from "../../src/analytics/analytics-store.js";
import { issueApiKey } from "../../src/analytics/api-keys.js";
import type { AnalyticsRouter } from "../../src/analytics/analytics-router.js";
import { createAnalyticsRouter } from "../../src/analytics/create-analytics-router.js";
import { analyticsOperations } from "../../src/analytics/definitions/analytics-operations.js";
import type { OperationDefinition } from "../../src/analytics/definitions/operation-definition.js";
import { checkResponse } from "../../src/analytics/definitions/schema-validators.js";
import { memoryAnalyticsStore } from "../../src/analytics/memory/memory-analytics-store.js";
import { sqlAnalyticsStore } from "../../src/analytics/sql/sql-analytics-store.js";
import { createTokenStore, type TokenStore } from "../../../src/auth/hashed-token-store.js";
import { createScimRouter } from "../../../src/http/create-scim-router.js";
import { memoryStore } from "../../../src/store/memory/memory-store.js";
import type { ResourceStore } from "../../../src/store/resource-store.js";
import { sqlStore } from "../../../src/store/sql/sql-store.js";
import type { PostgresPool } from "kysely";
import { type EventSigningKeys, eventSigningKeys } from "../../../src/events/event-signing-keys.js";
import { memoryEventReceiverStore, memorySigningKeyRepository } from "../../../src/events/memory-event-receiver-store.js";
import { securityEventDelivery, type SecurityEventDelivery } from "../../../src/events/security-event-delivery.js";
import { sqlEventReceiverStore, sqlSigningKeyRepository } from "../../../src/store/sql/sql-event-receiver-store.js";
import type { SqlStore } from "../../../src/store/sql/sql-store.js";

export const BASE = "/analytics/v1";
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
/** A well-formed UUID that no record has, for the 404 an unknown id shares with another organization's. */
export const UNKNOWN = "01890a5d-ac96-774b-bcce-b302099a8057";

/**
 * Options of the describe blocks: a test builds a populated service (organizations, SCIM learners,
 * admin users, training data) over HTTP before it asserts, which can outlast vitest's 5 s default
 * on a machine busy with other work.
 */
export const POPULATED = { timeout: 30_000 } as const;

/** A JSON body as the tests read it. */
export type Json = Record<string, unknown>;

/** The stores behind one app. */
interface Stores {
  readonly resources: ResourceStore;
  /** The SQL store behind `resources`, when it is one. */
  readonly sql?: SqlStore;
  readonly scimTokens: TokenStore;
  readonly analytics: AnalyticsStore;
  /** Ends the connections the stores opened (a PostgreSQL pool); nothing for the others. */
  close(): Promise<void>;
}

/** Which store the HTTP tests run on: memory by default, SQLite in the `express5-sqlite` project. */
export const storeKind: "memory" | "sqlite" = process.env["SCIMKIT_HTTP_STORE"] === "sqlite" ? "sqlite" : "memory";

/**
 * The stores, their SCIM tokens on the test clock (so expiry and rotation grace can be tested by
 * moving it): on PostgreSQL in `postgres`'s schema when it is given, else as `storeKind` says.
 */
async function openStores(now: () => Date, postgres: TestAppOptions["postgres"]): Promise<Stores> {
  if (postgres !== undefined) {
    const store = await sqlStore({ postgres: postgres.pool, tokens: { now } });
    return {
      resources: store,
      sql: store,
      scimTokens: store.tokens,
      analytics: await sqlAnalyticsStore(store),
      close: () => store.close(),
    };
  }
  if (storeKind === "sqlite") {
    // On the event loop, as test/http/harness.ts says why.
    const store = await sqlStore({ sqlite: ":memory:", threads: false, tokens: { now } });
    return {
      resources: store,
      sql: store,
      scimTokens: store.tokens,
      analytics: await sqlAnalyticsStore(store),
      close: () => store.close(),
    };
  }
  const resources = memoryStore();
  const scimTokens = createTokenStore({ now });
  return { resources, scimTokens, analytics: memoryAnalyticsStore({ resources, tokens: scimTokens }), close: async () => undefined };
}

/** A clock the test moves by hand; the router and the recorder read it. */
export interface TestClock {
  now(): Date;
  set(iso: string): void;
  advance(milliseconds: number): void;
}

function testClock(start: string): TestClock {
  let current = Date.parse(start);
  return {
    now: () => new Date(current),
    set: (iso) => {
      current = Date.parse(iso);
    },
    advance: (milliseconds) => {
      current += milliseconds;
    },
  };
}

/** What a response was checked against; collected so a test can see what was covered. */
export interface Exchange {
  readonly operationId: string | undefined;
  readonly status: number;
}

export interface RequestOptions {
  /** The bearer key; `null` sends no Authorization header. Default: the operator key. */
  readonly key?: string | null;
  /** A JSON body (sent as application/json) or raw text with `contentType`. */
  readonly body?: unknown;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface AnalyticsTestApp extends Stores {
  readonly app: Express;
  /** The analytics router, for its report worker and its `close()`. */
  readonly router: AnalyticsRouter;
  readonly clock: TestClock;
  readonly recorder: AnalyticsRecorder;
  readonly operatorKey: string;
  /** Invitations delivered through `onInvitation`, newest last. */
  readonly invitations: Invitation[];
  /** Errors the router reported through `onError`. */
  readonly errors: unknown[];
  /** Every checked exchange. */
  readonly exchanges: Exchange[];
  /** The RFC 9967 delivery given to the router, with `securityEvents: true`; its loop is never started. */
  readonly securityEvents: SecurityEventDelivery | undefined;
  /** The signing keys given to the router (and the delivery), with `securityEvents: true`. */
  readonly securityEventKeys: EventSigningKeys | undefined;
  /** Sends a request below `/analytics/v1` (or to an absolute path) and checks the response against the document. */
  send(method: string, path: string, options?: RequestOptions): Promise<request.Response>;
  get(path: string, key?: string | null): Promise<request.Response>;
  post(path: string, body?: unknown, key?: string | null): Promise<request.Response>;
  patch(path: string, body?: unknown, key?: string | null): Promise<request.Response>;
  delete(path: string, key?: string | null): Promise<request.Response>;
}

/** The operation that `method` and `path` (below the base, without query) address, matched like the router. */
export function operationFor(method: string, path: string): OperationDefinition | undefined {
  for (const operation of analyticsOperations as readonly OperationDefinition[]) {
    if (operation.method !== method.toLowerCase()) continue;
    const pattern = new RegExp(`^${operation.path.replace(/\{[A-Za-z]+\}/g, "[^/]+")}$`);
    if (pattern.test(path)) return operation;
  }
  return undefined;
}

function mediaTypeOf(response: request.Response): string {
  return (String(response.headers["content-type"] ?? "").split(";")[0] ?? "").trim();
}

/** Fails unless `response` is what its operation documents, status and body. */
function expectDocumented(method: string, path: string, response: request.Response): string | undefined {
  const pathOnly = path.split("?")[0] ?? "";
  const operation = operationFor(method, pathOnly);
  if (operation === undefined || method.toUpperCase() === "HEAD") return operation?.operationId;
  const mediaType = mediaTypeOf(response);
  const body: unknown = response.status === 204 ? undefined : mediaType === "text/csv" ? response.text : (response.body as unknown);
  const checked = checkResponse(operation, response.status, mediaType === "" ? "application/json" : mediaType, body);
  if (!checked.documented || checked.errors.length > 0) {
    throw new Error(
      `${method} ${path} answered ${response.status} ${mediaType}, which ${operation.operationId} does not document${
        checked.errors.length > 0 ? `: ${JSON.stringify(checked.errors)}` : ""
      }\n${response.text}`,
    );
  }
  return operation.operationId;
}

/** Options of `createAnalyticsTestApp`. */
export interface TestAppOptions {
  /** Router options to override. */
  readonly router?: Partial<AnalyticsRouterOptions>;
  /** Start of the test clock. Default 2026-03-01T09:00:00.000Z. */
  readonly now?: string;
  /** Run on PostgreSQL over this pool (its `search_path` a test schema) instead of `storeKind`. */
  readonly postgres?: { readonly pool: PostgresPool };
  /**
   * Give the router a `securityEventDelivery` over the store's outbox, receivers and keys in the
   * same storage (memory or SQL), and record SCIM writes' events (`durableEvents`). Default false.
   */
  readonly securityEvents?: boolean;
  /**
   * The delivery's `receiverAddressPolicy.allowHosts`. Default `["127.0.0.1"]`: the tests'
   * receivers listen there, which the address rules refuse unless allowed.
   */
  readonly receiverAllowHosts?: readonly string[];
  /**
   * Wraps the analytics store and the SCIM token store before anything uses them — e.g. to make
   * them slower, as a busy database is, so a race's window is wide enough to hit.
   */
  readonly wrap?: {
    readonly analytics?: (store: AnalyticsStore) => AnalyticsStore;
    readonly scimTokens?: (tokens: TokenStore) => TokenStore;
  };
}

/**
 * The delivery over `stores`' outbox, its receivers and keys in the same storage, and those keys;
 * the loop is the test's to run.
 */
function deliveryOver(
  stores: Stores,
  allowHosts: readonly string[],
  onError: (error: unknown) => void,
): { delivery: SecurityEventDelivery; keys: EventSigningKeys } {
  const outbox = stores.resources.events;
  if (outbox === undefined) throw new Error("the test store has no event outbox");
  const sql = stores.sql;
  const keys = eventSigningKeys(sql === undefined ? memorySigningKeyRepository() : sqlSigningKeyRepository(sql.db));
  const delivery = securityEventDelivery({
    outbox,
    receivers: sql === undefined ? memoryEventReceiverStore() : sqlEventReceiverStore(sql.db, sql.dialect),
    keys,
    issuer: (orgId) => `http://scim.test/scim/Organizations/${encodeURIComponent(orgId)}/v2`,
    requestTimeoutMs: 5000,
    onError,
    receiverAddressPolicy: { allowHosts },
  });
  return { delivery, keys };
}

/** Builds a fresh app with an operator key. */
export async function createAnalyticsTestApp(options: TestAppOptions = {}): Promise<AnalyticsTestApp> {
  const clock = testClock(options.now ?? "2026-03-01T09:00:00.000Z");
  const opened = await openStores(() => clock.now(), options.postgres);
  const stores: Stores = {
    ...opened,
    analytics: options.wrap?.analytics?.(opened.analytics) ?? opened.analytics,
    scimTokens: options.wrap?.scimTokens?.(opened.scimTokens) ?? opened.scimTokens,
  };
  const invitations: Invitation[] = [];
  const errors: unknown[] = [];
  const exchanges: Exchange[] = [];
  const app = express();
  const events =
    options.securityEvents === true
      ? deliveryOver(stores, options.receiverAllowHosts ?? ["127.0.0.1"], (error) => errors.push(error))
      : undefined;
  const securityEvents = events?.delivery;
  const router = createAnalyticsRouter({
    store: stores.analytics,
    scimTokens: stores.scimTokens,
    onInvitation: (invitation) => {
      invitations.push(invitation);
    },
    onError: (error) => {
      errors.push(error);
    },
    now: () => clock.now(),
    cursorSecret: "test secret",
    ...(events === undefined ? {} : { securityEvents: events.delivery, securityEventKeys: events.keys }),
    ...options.router,
  });
  app.use(BASE, router);
  app.use(
    "/scim/Organizations/:orgId/v2",
    createScimRouter({
      store: stores.resources,
      auth: activeOrganizationsOnly(stores.scimTokens, stores.analytics),
      onError: (error) => errors.push(error),
      // The provisioning log the analytics router reads is the one this router writes.
      ...(options.router?.requestLog === undefined ? {} : { requestLog: options.router.requestLog }),
      // The writes' events feed the delivery's outbox.
      ...(securityEvents === undefined ? {} : { durableEvents: true }),
    }),
  );
  const operatorKey = (await issueApiKey(stores.analytics, { kind: "operator" })).key;
  const recorder = analyticsRecorder({ store: stores.analytics, now: () => clock.now() });

  async function send(method: string, path: string, requestOptions: RequestOptions = {}): Promise<request.Response> {
    const url = path.startsWith(BASE) || path.startsWith("/scim/") ? path : `${BASE}${path}`;
    const agent = request(app) as unknown as Record<string, (url: string) => request.Test>;
    const make = agent[method.toLowerCase()];
    if (make === undefined) throw new Error(`no such method ${method}`);
    let test = make.call(agent, url);
    const key = requestOptions.key === undefined ? operatorKey : requestOptions.key;
    if (key !== null) test = test.set("Authorization", `Bearer ${key}`);
    for (const [name, value] of Object.entries(requestOptions.headers ?? {})) test = test.set(name, value);
    if (requestOptions.body !== undefined) {
      const raw = typeof requestOptions.body === "string" && requestOptions.contentType !== undefined;
      test = test
        .set("Content-Type", requestOptions.contentType ?? "application/json")
        .send(raw ? (requestOptions.body as string) : JSON.stringify(requestOptions.body));
    }
    const response = await test;
    if (url.startsWith(BASE)) {
      const operationId = expectDocumented(method, url.slice(BASE.length), response);
      exchanges.push({ operationId, status: response.status });
    }
    return response;
  }

  return {
    ...stores,
    app,
    router,
    clock,
    recorder,
    operatorKey,
    invitations,
    errors,
    exchanges,
    securityEvents,
    securityEventKeys: events?.keys,
    send,
    get: (path, key) => send("GET", path, key === undefined ? {} : { key }),
    post: (path, body, key) => send("POST", path, { ...(body === undefined ? {} : { body }), ...(key === undefined ? {} : { key }) }),
    patch: (path, body, key) => send("PATCH", path, { ...(body === undefined ? {} : { body }), ...(key === undefined ? {} : { key }) }),
    delete: (path, key) => send("DELETE", path, key === undefined ? {} : { key }),
  };
}

/** Asserts an RFC 9457 problem of `status` and `type` (the part after `/problems/`) and returns it. */
export function expectProblem(
  response: request.Response,
  status: number,
  type: string,
): Json & { detail: string; errors?: { field: string; message: string }[] } {
  const body = response.body as Json;
  if (response.status !== status || body["type"] !== `https://scimkit.dev/problems/${type}`) {
    throw new Error(`expected ${status} ${type}, got ${response.status}: ${response.text}`);
  }
  expect(String(response.headers["content-type"])).toMatch(/^application\/problem\+json/);
  expect(body["status"]).toBe(status);
  expect(typeof body["title"]).toBe("string");
  expect(typeof body["detail"]).toBe("string");
  expect((body["detail"] as string).length).toBeGreaterThan(0);
  return body as Json & { detail: string; errors?: { field: string; message: string }[] };
}

/** Asserts a 400 `invalid-request` naming exactly `fields` (in any order). */
export function expectInvalidFields(response: request.Response, fields: readonly string[]): void {
  const problem = expectProblem(response, 400, "invalid-request");
  expect([...new Set((problem.errors ?? []).map((error) => error.field))].sort()).toEqual([...fields].sort());
  for (const error of problem.errors ?? []) expect(error.message.length).toBeGreaterThan(0);
}

/** A SCIM user body. */
export function scimUser(userName: string, extra: Json = {}): Json {
  return {
    schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
    userName,
    displayName: `Learner ${userName}`,
    emails: [{ value: `${userName}@example.com`, type: "work", primary: true }],
    active: true,
    ...extra,
  };
}

/**
 * Reads until `done` holds of what was read, and returns that. Bounded by a deadline rather than a
 * number of reads: on a busy machine each read takes longer and fewer fit in the time the work
 * being waited for needs. The deadline is generous and measures nothing.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Polls the operation until it has finished, and returns its last state. */
export async function settle(t: AnalyticsTestApp, operationId: string, key?: string): Promise<Json> {
  return eventually(
    async () => {
      const response = await t.get(`/operations/${operationId}`, key);
      expect(response.status).toBe(200);
      return response.body as Json;
    },
    (body) => body["status"] === "succeeded" || body["status"] === "failed",
    `operation ${operationId} to finish`,
  );
}
