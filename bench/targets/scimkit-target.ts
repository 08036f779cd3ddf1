/**
 * The scimkit target (bench/target-protocol.md): the example host app (`createHostApp`) on the
 * store `STORE` names — `memory`, `sqlite` (a temp file, deleted at the end), `postgres` (a
 * fresh schema in `SCIMKIT_BENCH_POSTGRES_URL`, dropped at the end) or `table` (`tableStore` over
 * an application's own tables in a SQLite temp file: the conformance kit's mapping A, with the
 * list-generation triggers) — with a static token for
 * each of two organizations: the measured one and a neighbour (the noisy-neighbour scenario).
 * Seeding goes through the `ResourceStore` API with the same normalization the router applies.
 * `REQUEST_LOG` (`memory` | `sql`, unset for none) gives the host a provisioning log (issue 18),
 * so the runner can measure what the log costs. `EVENTS=on` gives the host its RFC 9967 delivery
 * (issue 20), as `scimkit serve` does by default: the router records each write's events in the
 * write's transaction (`durableEvents`), pending until the host's `onEvent` listener (here one that
 * does nothing) has run, and the push loop runs idle (no receiver). Unset or `off`: the library's
 * default, events in process only — what the main benchmark measures.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import { sql } from "kysely";
import { v7 as uuidv7 } from "uuid";
import { createHostApp } from "../../server/src/host/host-server.js";
import { hostEventDelivery } from "../../server/src/host/host-event-delivery.js";
import type { HostSecurityEvents } from "../../server/src/host/host-security-events.js";
import { staticTokenVerifier } from "../../src/auth/static-token-verifier.js";
import { unwrap } from "../../src/result.js";
import { createResourceValidator } from "../../src/scim/schema/create-resource-validator.js";
import { specProfile } from "../../src/scim/schema/resource-profile.js";
import { createSchemaRegistry } from "../../src/scim/schema/schema-registry.js";
import type { ScimObject } from "../../src/scim/schema/normalize-value.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { memoryRequestLog } from "../../src/request-log/memory-request-log.js";
import { sqlRequestLog } from "../../src/store/sql/request-log/sql-request-log.js";
import type { SqlStore } from "../../src/store/sql/sql-store.js";
import type { ReadableRequestLog } from "../../src/request-log/readable-request-log.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { sqliteDialect } from "../../src/store/sql/dialects/sqlite-dialect.js";
import { openSqlite } from "../../src/store/sql/open-sqlite.js";
import { sqlStore } from "../../src/store/sql/sql-store.js";
import { createSchemaA, mappingA } from "../../src/store/sql/table/table-mappings.fixture.js";
import { tableStore } from "../../src/store/sql/table/table-store.js";
import { tableStoreTriggersSql } from "../../src/store/sql/table/table-store-triggers-sql.js";
import { uniqueKeysOf } from "../../src/store/unique-keys.js";
import type { SeedGroupRequest, SeedUsersRequest } from "../lib/target-protocol.js";
import { createMetricsProbe, wantsCollection, mapBounded, onShutdown, printReady } from "../lib/target-support.js";
import { groupBody, userBody } from "../lib/user-body.js";

const ORG = "bench";
const TOKEN = "bench-static-token-0123456789abcdef";
// Organization B of the noisy-neighbour scenario: its own users and token on the same server.
const NEIGHBOUR_ORG = "neighbour";
const NEIGHBOUR_TOKEN = "bench-neighbour-token-fedcba9876543210";
const kind = process.env["STORE"] ?? "memory";

interface OpenedStore {
  readonly store: ResourceStore;
  readonly description: string;
  readonly concurrency: number;
  /** Brings the database to the state its own maintenance reaches after a bulk load. */
  settle(): Promise<void>;
  /**
   * Told how many users a seeding call has written: does what the database's own maintenance
   * does while a table grows (PostgreSQL's auto-analyze), where the benchmark's server has it off.
   */
  seeded?(users: number): Promise<void>;
  close(): Promise<void>;
}

async function openStore(): Promise<OpenedStore> {
  if (kind === "memory")
    return { store: memoryStore(), description: "scimkit memory store", concurrency: 1, settle: async () => {}, close: async () => {} };
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "scimkit-bench-"));
    const store = await sqlStore({ sqlite: join(dir, "bench.db") });
    return {
      store,
      description: `scimkit SQLite (${join(dir, "bench.db")})`,
      concurrency: 1,
      // SQLite has no automatic ANALYZE; an application would not run one either.
      settle: async () => {},
      close: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (kind === "postgres") {
    const url = process.env["SCIMKIT_BENCH_POSTGRES_URL"] ?? process.env["DATABASE_URL"];
    if (!url) throw new Error("STORE=postgres needs SCIMKIT_BENCH_POSTGRES_URL");
    const schema = `scimkit_bench_${Date.now().toString(36)}_${process.pid}`;
    const store = await sqlStore({ postgres: url, schema });
    // Rows written, and written at the last ANALYZE (of the schema's tables).
    let written = 0;
    let analyzedAt = 0;
    const parsed = new URL(url);
    return {
      store,
      description: `scimkit PostgreSQL ${parsed.host}${parsed.pathname} schema ${schema}`,
      concurrency: 16,
      // What autovacuum's auto-analyze does within a minute or so of a bulk load; without it the
      // planner still sees the empty tables of the fresh schema.
      settle: async () => {
        await sql`analyze`.execute(store.db);
        analyzedAt = written;
      },
      // Auto-analyze's default rule (50 rows + 10% of the table changed). The CI machine's server
      // runs with autovacuum off, and without it every pooled connection keeps the plans it made
      // for the empty tables — among them the foreign-key checks of each insert, which then scan
      // an index of the whole organization: seeding slowed from 1,165/s to 244/s per 10,000 users
      // by 250,000 (2026-12-07), and ran at 1,500/s again right after an ANALYZE.
      seeded: async (users) => {
        written += users;
        if (written < 50 + analyzedAt * 1.1) return;
        await sql`analyze`.execute(store.db);
        analyzedAt = written;
      },
      close: async () => {
        try {
          await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(store.db);
        } finally {
          await store.close();
        }
      },
    };
  }
  if (kind === "table") {
    const dir = mkdtempSync(join(tmpdir(), "scimkit-bench-"));
    const file = join(dir, "app.db");
    // The application's database, opened as `sqlStore` opens its own (worker threads, WAL), with
    // the application's migration: integer ids, its unique e-mail index, teams and members, and
    // the list-generation triggers docs/your-own-tables.md recommends (startIndex walks skip OFFSET).
    const db = await openSqlite(file);
    await createSchemaA(db, "sqlite");
    for (const statement of tableStoreTriggersSql(mappingA, sqliteDialect)) await sql.raw(statement).execute(db);
    const store = await tableStore({ kysely: db, dialect: sqliteDialect, ...mappingA });
    return {
      store,
      description: `scimkit table store, SQLite, mapping A (${file})`,
      concurrency: 1,
      settle: async () => {},
      close: async () => {
        await store.close();
        await db.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  throw new Error(`STORE must be memory, sqlite, postgres or table; got ${kind}`);
}

/**
 * The provisioning log `REQUEST_LOG` names. The memory ring holds 10,000 entries (or
 * `REQUEST_LOG_CAPACITY`), the default body size (64 KiB) applies: a log as a host would run it.
 */
function openRequestLog(store: ResourceStore): ReadableRequestLog | undefined {
  const wanted = process.env["REQUEST_LOG"] ?? "off";
  if (wanted === "off") return undefined;
  if (wanted === "memory") return memoryRequestLog({ capacity: Number(process.env["REQUEST_LOG_CAPACITY"] ?? 10_000) });
  if (wanted === "sql") {
    // The log in the target's own database, as the host keeps it by default.
    if (!("db" in store && "dialect" in store)) throw new Error("REQUEST_LOG=sql needs STORE=sqlite or STORE=postgres");
    return sqlRequestLog(store as SqlStore);
  }
  throw new Error(`REQUEST_LOG must be off, memory or sql; got ${wanted}`);
}

const opened = await openStore();
const { store } = opened;
const requestLog = openRequestLog(store);
const registry = createSchemaRegistry();
const foundUser = registry.resourceType("User");
const foundGroup = registry.resourceType("Group");
if (!foundUser || !foundGroup) throw new Error("core schemas missing");
const userSchema = foundUser;
const groupSchema = foundGroup;
const userValidator = createResourceValidator(userSchema, specProfile);
const groupValidator = createResourceValidator(groupSchema, specProfile);

function canonical(prepared: ScimObject): ScimObject {
  const { schemas: _schemas, id: _id, meta: _meta, members: _members, ...attributes } = prepared;
  return attributes;
}

/** `seeded[i]` is user i's id. */
const seeded: string[] = [];
let groupCounter = 0;

async function seedUser(orgId: string, i: number): Promise<string> {
  const attributes = canonical(unwrap(userValidator.prepare(userBody(i))));
  const result = await store.create({
    orgId,
    resourceType: "User",
    id: uuidv7(),
    now: new Date().toISOString(),
    attributes,
    uniqueKeys: uniqueKeysOf(userSchema, attributes),
    unknownMembers: "ignore",
  });
  // A store may assign its own id (the table store's integer keys).
  const { id } = result.resource;
  if (orgId === ORG) seeded[i] = id;
  return id;
}

const probe = createMetricsProbe();
/** The host's delivery when `EVENTS=on`, as `scimkit serve` builds it; undefined otherwise. */
function securityEventsOf(): HostSecurityEvents | undefined {
  const wanted = process.env["EVENTS"] ?? "off";
  if (wanted === "off") return undefined;
  if (wanted !== "on") throw new Error(`EVENTS must be on or off; got ${wanted}`);
  const events = hostEventDelivery(store, { publicUrl: "http://bench.invalid" });
  return { delivery: events.delivery, keys: events.keys };
}
const securityEvents = securityEventsOf();

const app = createHostApp({
  store,
  ...(securityEvents === undefined ? {} : { securityEvents }),
  auth: staticTokenVerifier({ [ORG]: TOKEN, [NEIGHBOUR_ORG]: NEIGHBOUR_TOKEN }),
  // Per-request log lines and event lines would measure the terminal, not scimkit.
  log: () => {},
  onEvent: () => {},
  // The load generator is one organization at thousands of requests per second, on purpose.
  limits: { rateLimit: false },
  ...(requestLog ? { requestLog } : {}),
});
const control = express.Router();
control.use(express.json({ limit: "64mb" }));
control.get("/metrics", (request, response) => {
  response.json({ ...probe.read(wantsCollection(request.query)), inFlight });
});
control.post("/seed-users", async (request, response, next) => {
  try {
    const { from, count, organization } = request.body as SeedUsersRequest;
    const orgId = organization === "neighbour" ? NEIGHBOUR_ORG : ORG;
    const started = performance.now();
    const ids = await mapBounded(from, count, opened.concurrency, (i) => seedUser(orgId, i));
    await opened.seeded?.(ids.length);
    response.json({ ids, ms: performance.now() - started });
  } catch (error) {
    next(error);
  }
});
control.post("/seed-group", async (request, response, next) => {
  try {
    const body = request.body as SeedGroupRequest;
    const started = performance.now();
    const memberIds = body.memberIds ?? seeded.slice(0, body.memberCount ?? 0);
    groupCounter += 1;
    const displayName = body.displayName ?? `bench-group-${groupCounter}-${Date.now()}`;
    const attributes = canonical(unwrap(groupValidator.prepare(groupBody(displayName))));
    const result = await store.create({
      orgId: ORG,
      resourceType: "Group",
      id: uuidv7(),
      now: new Date().toISOString(),
      attributes,
      uniqueKeys: uniqueKeysOf(groupSchema, attributes),
      members: [...new Set(memberIds)],
      unknownMembers: "ignore",
    });
    response.json({
      id: result.resource.id,
      memberCount: result.membership?.added.length ?? memberIds.length,
      ms: performance.now() - started,
    });
  } catch (error) {
    next(error);
  }
});
control.post("/settle", async (_request, response, next) => {
  try {
    const started = performance.now();
    await opened.settle();
    response.json({ ms: performance.now() - started });
  } catch (error) {
    next(error);
  }
});
const controlApp = express();
controlApp.use("/__bench", control);
controlApp.use((error: unknown, _request: express.Request, response: express.Response, _next: express.NextFunction) => {
  process.stderr.write(`control error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  response.status(500).json({ error: String(error) });
});

// SCIM requests go straight to the host app, so the measured stack is exactly `createHostApp`'s;
// the only addition is counting requests whose handler has not ended yet, so the runner can wait
// for a phase's stragglers (a client that hung up does not stop a running database query).
let inFlight = 0;
const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  if (request.url?.startsWith("/__bench/")) {
    controlApp(request, response);
    return;
  }
  inFlight += 1;
  const end = response.end;
  let ended = false;
  response.end = function (this: ServerResponse, ...args: unknown[]) {
    if (!ended) {
      ended = true;
      inFlight -= 1;
    }
    return (end as (...rest: unknown[]) => ServerResponse).apply(this, args);
  } as typeof response.end;
  app(request, response);
});
server.listen(Number(process.env["PORT"] ?? 0), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  printReady({
    port,
    scimBase: `/scim/Organizations/${ORG}/v2`,
    token: TOKEN,
    description: opened.description,
    neighbour: { scimBase: `/scim/Organizations/${NEIGHBOUR_ORG}/v2`, token: NEIGHBOUR_TOKEN },
  });
});
server.keepAliveTimeout = 60_000;
onShutdown(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await opened.close();
});
