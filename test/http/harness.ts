/**
 * The app every HTTP test drives: the router on the memory store, mounted at the spec's path
 * (spec §2.1) with two organizations and their tokens, and the events it delivered.
 */
import express, { type Express } from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createTokenStore, type TokenStore } from "../../src/auth/hashed-token-store.js";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import type { ScimEvent } from "../../src/http/lifecycle-events/scim-event.js";
import type { ScimRouterOptions } from "../../src/http/scim-router-options.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../src/store/sql/postgres-test-database.fixture.js";
import { sqlStore, type SqlStore, type SqlStoreOptions } from "../../src/store/sql/sql-store.js";
import type { ResourceStore } from "../../src/store/resource-store.js";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

export interface TestApp {
  readonly app: Express;
  readonly store: ResourceStore;
  readonly tokens: TokenStore;
  /** Bearer tokens of organizations `acme` and `globex`. */
  readonly token: { readonly acme: string; readonly globex: string };
  readonly events: ScimEvent[];
  readonly errors: unknown[];
  /** `/scim/Organizations/{org}/v2`. */
  base(org?: string): string;
  /** A supertest agent call with acme's (or the given) token already set. */
  get(path: string, token?: string): request.Test;
  post(path: string, body?: unknown, token?: string): request.Test;
  put(path: string, body?: unknown, token?: string): request.Test;
  patch(path: string, body?: unknown, token?: string): request.Test;
  delete(path: string, token?: string): request.Test;
}

/**
 * The store the HTTP tests run on by default: the memory store, or — in the `express5-sqlite`
 * project (`SCIMKIT_HTTP_STORE=sqlite`) — a fresh in-memory SQLite `sqlStore`, so every HTTP test
 * also proves the router and the SQL store together. On the event loop (`threads: false`): a
 * store per test, never closed, would each start a worker thread (a few hundred milliseconds
 * under tsx), about two more minutes of CPU for the project; the worker threads have tests of
 * their own (`src/store/sql/sqlite-worker/`, the conformance kit, the host's).
 */
export async function defaultStore(): Promise<ResourceStore> {
  return process.env["SCIMKIT_HTTP_STORE"] === "sqlite" ? sqlStore({ sqlite: ":memory:", threads: false }) : memoryStore();
}

/** Builds a fresh app; `options` override the router options (store and auth included). */
export async function createTestApp(options: Partial<ScimRouterOptions> = {}, configure?: (app: Express) => void): Promise<TestApp> {
  const store = options.store ?? (await defaultStore());
  const tokens = createTokenStore();
  const acme = (await tokens.issue("acme", { label: "tests" })).token;
  const globex = (await tokens.issue("globex", { label: "tests" })).token;
  const events: ScimEvent[] = [];
  const errors: unknown[] = [];
  const app = express();
  configure?.(app);
  app.use(
    "/scim/Organizations/:orgId/v2",
    createScimRouter({
      store,
      auth: tokens,
      onEvent: (event) => {
        events.push(event);
      },
      onError: (error) => {
        errors.push(error);
      },
      ...options,
    }),
  );
  const base = (org = "acme"): string => `/scim/Organizations/${org}/v2`;
  const url = (path: string): string => (path.startsWith("/scim/") ? path : `${base()}${path}`);
  const withBody = (test: request.Test, body: unknown): request.Test =>
    body === undefined
      ? test
      : test.set("Content-Type", "application/scim+json").send(typeof body === "string" ? body : JSON.stringify(body));
  return {
    app,
    store,
    tokens,
    token: { acme, globex },
    events,
    errors,
    base,
    get: (path, token = acme) => request(app).get(url(path)).set("Authorization", `Bearer ${token}`),
    post: (path, body, token = acme) => withBody(request(app).post(url(path)).set("Authorization", `Bearer ${token}`), body),
    put: (path, body, token = acme) => withBody(request(app).put(url(path)).set("Authorization", `Bearer ${token}`), body),
    patch: (path, body, token = acme) => withBody(request(app).patch(url(path)).set("Authorization", `Bearer ${token}`), body),
    delete: (path, token = acme) => request(app).delete(url(path)).set("Authorization", `Bearer ${token}`),
  };
}

/** A user body that satisfies both profiles. */
export function userBody(userName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA],
    userName,
    name: { givenName: "Given", familyName: `Family ${userName}` },
    emails: [{ value: `${userName.toLowerCase()}@example.com`, type: "work", primary: true }],
    active: true,
    ...extra,
  };
}

/** Asserts the RFC 7644 §3.12 error shape and returns the body. */
export function expectScimError(response: request.Response, status: number, scimType?: string): { detail: string } {
  const body = response.body as { schemas?: unknown; status?: unknown; scimType?: unknown; detail?: unknown };
  if (response.status !== status || body.status !== String(status) || (scimType !== undefined && body.scimType !== scimType)) {
    throw new Error(`expected ${status}${scimType ? ` ${scimType}` : ""}, got ${response.status}: ${JSON.stringify(response.body)}`);
  }
  if (!Array.isArray(body.schemas) || body.schemas[0] !== ERROR_SCHEMA || typeof body.detail !== "string" || body.detail.length === 0) {
    throw new Error(`not a SCIM error body: ${JSON.stringify(response.body)}`);
  }
  if (!String(response.headers["content-type"]).startsWith("application/scim+json")) {
    throw new Error(`error content-type is ${String(response.headers["content-type"])}`);
  }
  return { detail: body.detail };
}

/**
 * Opens SQL stores on a PostgreSQL schema of this `describe` block (inside `describePostgres`),
 * each on a pool of its own as a separate process would have; closes them and drops the schema
 * after the block.
 */
export function postgresStores(url: string): (options?: { readonly tokens?: SqlStoreOptions["tokens"] }) => Promise<SqlStore> {
  let schema: TestSchema | undefined;
  const stores: SqlStore[] = [];
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await schema?.drop();
  });
  return async (options = {}) => {
    if (!schema) throw new Error("postgresStores: open stores inside a test, after the schema is made");
    const store = await sqlStore({ ...options, postgres: schema.pool() });
    stores.push(store);
    return store;
  };
}

/** The store a check's app runs on: undefined for this project's default store (`defaultStore`). */
export type StoreFor = () => Promise<ResourceStore | undefined>;

/**
 * Runs `checks` on this project's store and on PostgreSQL, with a store per test on one schema
 * whose organizations `orgIds` start empty, so each test's app has their data to itself. The
 * SQLite project skips the PostgreSQL half: the express5 and express4 projects run it there.
 */
export function describeOnEveryStore(name: string, checks: (storeFor: StoreFor) => void, orgIds: readonly string[] = ["acme"]): void {
  describe(`${name}, on this project's store`, () => {
    checks(async () => undefined);
  });
  if (process.env["SCIMKIT_HTTP_STORE"] === "sqlite") {
    describe.skip(`${name}, on PostgreSQL [skipped because the express5 and express4 projects run it there]`, () => {
      it("runs the checks", () => undefined);
    });
    return;
  }
  describePostgres(`${name}, on PostgreSQL`, (url) => {
    const openStore = postgresStores(url);
    checks(async () => {
      const store = await openStore();
      for (const orgId of orgIds) await store.deleteOrganization?.(orgId);
      return store;
    });
  });
}
