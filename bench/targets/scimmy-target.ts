/**
 * The peer target (bench/target-protocol.md): scimmy 1.3.5 + scimmy-routers 1.3.2 on Express 5,
 * set up the way their READMEs show — `SCIMMY.Resources.declare(...)` with ingress/egress/degress
 * handlers over a small in-memory adapter (`./scimmy/memory-adapter.ts`), and
 * `new SCIMMYRouters({ type: "bearer", handler })` mounted at `/scim/v2`, checking one static token.
 *
 * Seeding goes through the adapter, not HTTP: each body from `userBody(i)` is coerced by scimmy's
 * own schema class (`new SCIMMY.Schemas.User(body, "in")`, exactly what `Resource.write` does
 * before calling ingress) and stored, without the per-create `userName` scan (the bodies are
 * unique by construction, and a quadratic seed would measure nothing the runner reports).
 *
 * What the peer does not have (listed in the ready line's `unsupported` and `description`):
 * cursor pagination — scimmy ignores `cursor` and answers page 1, so a thin guard in front of the
 * router turns `cursor` into a 400 the runner counts as "unsupported" instead of timing a wrong
 * answer — and ETags (`meta.version`, If-Match).
 */
import express from "express";
import SCIMMY from "scimmy";
import SCIMMYRouters from "scimmy-routers";
import type { SeedGroupRequest, SeedUsersRequest } from "../lib/target-protocol.js";
import { createMetricsProbe, mapBounded, onShutdown, printReady } from "../lib/target-support.js";
import { groupBody, userBody } from "../lib/user-body.js";
import { declareMemoryResources } from "./scimmy/memory-adapter.js";

const SCIM_BASE = "/scim/v2";
const TOKEN = "bench-static-token-0123456789abcdef";
/** Protocol features the runner may probe that this peer lacks (4xx from the guard below). */
const UNSUPPORTED = ["cursor", "etag"] as const;

const adapter = declareMemoryResources();

/** `seeded[i]` is user i's id (for `seed-group {memberCount}`). */
const seeded: string[] = [];
let groupCounter = 0;

async function seedUser(i: number): Promise<string> {
  const record = adapter.users.create(new SCIMMY.Schemas.User(userBody(i), "in"), { skipUniqueness: true });
  seeded[i] = record.id;
  return record.id;
}

const probe = createMetricsProbe();
const control = express.Router();
control.use(express.json({ limit: "64mb" }));
control.get("/metrics", (_request, response) => {
  response.json(probe.read());
});
control.post("/seed-users", async (request, response, next) => {
  try {
    const { from, count } = request.body as SeedUsersRequest;
    const started = performance.now();
    const ids = await mapBounded(from, count, 16, seedUser);
    response.json({ ids, ms: performance.now() - started });
  } catch (error) {
    next(error);
  }
});
control.post("/seed-group", (request, response, next) => {
  try {
    const body = request.body as SeedGroupRequest;
    const started = performance.now();
    const memberIds = [...new Set(body.memberIds ?? seeded.slice(0, body.memberCount ?? 0))];
    groupCounter += 1;
    const displayName = body.displayName ?? `bench-group-${groupCounter}-${Date.now()}`;
    const record = adapter.groups.create(new SCIMMY.Schemas.Group(groupBody(displayName, memberIds), "in"));
    const stored = Array.isArray(record["members"]) ? record["members"].length : 0;
    response.json({ id: record.id, memberCount: stored, ms: performance.now() - started });
  } catch (error) {
    next(error);
  }
});

/** scimmy has no cursor pagination and would silently return page 1; say so with a SCIM 400. */
const cursorGuard: express.RequestHandler = (request, response, next) => {
  if (request.method === "GET" && request.query["cursor"] !== undefined) {
    response
      .status(400)
      .type("application/scim+json")
      .send(
        JSON.stringify(
          new SCIMMY.Messages.Error({
            status: 400,
            scimType: "invalidValue",
            message: "Cursor-based pagination is not supported by scimmy",
          }),
        ),
      );
    return;
  }
  next();
};

/**
 * Express 5 compatibility: scimmy-routers casts `startIndex`/`count` to numbers by assigning to
 * `req.query[...]`, but Express 5's `req.query` is a getter that re-parses the URL on every read,
 * so the cast is lost, scimmy's Resource drops the non-integer strings, and every list request
 * answers `startIndex=1, itemsPerPage=20` whatever was asked. Pinning the parsed query as a plain
 * property restores the Express 4 behaviour scimmy-routers was written against.
 */
const pinQuery: express.RequestHandler = (request, _response, next) => {
  Object.defineProperty(request, "query", { value: request.query, writable: true, configurable: true, enumerable: true });
  next();
};

const app = express();
app.disable("x-powered-by");
app.use("/__bench", control);
app.use(
  SCIM_BASE,
  pinQuery,
  cursorGuard,
  new SCIMMYRouters({
    type: "bearer",
    docUri: "https://example.com/help/oauth.html",
    handler: (request) => {
      if (request.header("Authorization") !== `Bearer ${TOKEN}`) throw new Error("Authorization not detected!");
      return "bench-client";
    },
  }),
);
app.use((error: unknown, _request: express.Request, response: express.Response, _next: express.NextFunction) => {
  // scimmy-routers answers its own errors and forwards 5xx here after sending; control errors land here too.
  process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  if (!response.headersSent) response.status(500).json({ error: String(error) });
});

const server = app.listen(Number(process.env["PORT"] ?? 0), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  // `unsupported` is an extra field beyond ReadyLine (parseReadyLine ignores it); the same list is in `description`.
  const line = {
    port,
    scimBase: SCIM_BASE,
    token: TOKEN,
    description: `scimmy 1.3.5 + scimmy-routers 1.3.2, Express 5, in-memory adapter (filters: scimmy Filter.match scan); unsupported: ${UNSUPPORTED.join(", ")}`,
    unsupported: UNSUPPORTED,
  };
  printReady(line);
});
server.keepAliveTimeout = 60_000;
onShutdown(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
