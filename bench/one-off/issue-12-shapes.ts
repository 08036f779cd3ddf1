/**
 * One-off timing of issue 12's request shapes (not a test, not part of `npm run bench`): each shape
 * against the router on a real socket, with the longest event-loop stall seen while it ran and the
 * latency of a cheap GET of another organization sent 20 ms after it started.
 *
 *   npx tsx bench/one-off/issue-12-shapes.ts [memory|sqlite|postgres] [emails] [operations] [addValues] [bulkPosts]
 *
 * With RAISED=1 the write limits are raised to admit the issue's exact shapes (10,000 values,
 * 12,000 operations), to time the engine itself; without, the router's defaults apply.
 */
import express from "express";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createTokenStore } from "../../src/auth/hashed-token-store.js";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { sqlStore } from "../../src/store/sql/sql-store.js";

const [kind = "memory", emailsArg = "10000", operationsArg = "12000", addArg = "9999", bulkArg = "1000"] = process.argv.slice(2);
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";

// PostgreSQL: a schema of this run's own on the shared server (SCIMKIT_TEST_POSTGRES_URL), dropped at the end.
const schema = `issue12_timing_${process.pid}`;
const postgresUrl = process.env["SCIMKIT_TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const store =
  kind === "sqlite"
    ? await sqlStore({ sqlite: ":memory:" })
    : kind === "postgres"
      ? await sqlStore({ postgres: postgresUrl, schema })
      : memoryStore();
const tokens = createTokenStore();
const acme = (await tokens.issue("acme", { label: "timing" })).token;
const globex = (await tokens.issue("globex", { label: "timing" })).token;
const app = express();
// Generous limits: the point is to time the shapes, not to be refused by the body size.
const raised = process.env["RAISED"] === "1" ? { writeLimits: { maxValues: 10_000, maxPatchOperations: 12_000 } } : {};
app.use(
  "/scim/Organizations/:orgId/v2",
  createScimRouter({ store, auth: tokens, bodyLimit: "20mb", bulk: { maxOperations: 1000, maxPayloadSize: 20_000_000 }, ...raised }),
);
const server = app.listen(0);
// A stalled loop lets a kept-alive connection expire under the client's feet (ECONNRESET); keep them longer.
server.keepAliveTimeout = 120_000;
const port = (server.address() as AddressInfo).port;
const url = (org: string, path: string): string => `http://127.0.0.1:${port}/scim/Organizations/${org}/v2${path}`;

interface Reply {
  readonly status: number;
  readonly text: string;
}

/** Sends a request whose body is already serialized, so the client's own work stays out of the timing. */
async function send(method: string, org: string, path: string, token: string, body?: string): Promise<Reply> {
  const response = await fetch(url(org, path), {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
    ...(body === undefined ? {} : { body }),
  });
  return { status: response.status, text: await response.text() };
}

function parsed(reply: Reply): { status: number; body: Record<string, unknown> } {
  return { status: reply.status, body: reply.text === "" ? {} : (JSON.parse(reply.text) as Record<string, unknown>) };
}

async function call(
  method: string,
  org: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return parsed(await send(method, org, path, token, body === undefined ? undefined : JSON.stringify(body)));
}

function emails(count: number, prefix: string): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) => ({
    value: `${prefix}${index}@example.com`,
    type: "work",
    ...(index === 0 ? { primary: true } : {}),
  }));
}

async function timed(label: string, method: string, path: string, payload: unknown): Promise<void> {
  const body = JSON.stringify(payload);
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const started = performance.now();
  let getDone = Number.NaN;
  const probe = new Promise<void>((resolve) => {
    // Timed from when it was due, so that a stalled loop delaying the send counts against it.
    setTimeout(() => {
      void send("GET", "globex", "/Users?count=1", globex).then(() => {
        getDone = performance.now() - started - 20;
        resolve();
      });
    }, 20);
  });
  const reply = await send(method, "acme", path, acme, body);
  const elapsed = performance.now() - started;
  await probe;
  histogram.disable();
  const result = parsed(reply);
  const detail = typeof result.body["detail"] === "string" ? ` — ${String(result.body["detail"]).slice(0, 110)}` : "";
  console.log(
    `${kind} ${label}: ${result.status} in ${elapsed.toFixed(0)} ms; longest loop stall ${(histogram.max / 1e6).toFixed(0)} ms; ` +
      `other org's GET due at +20 ms answered ${getDone.toFixed(0)} ms later${detail}`,
  );
}

const emailCount = Number(emailsArg);
const operationCount = Number(operationsArg);
const big = await call("POST", "acme", "/Users", acme, { schemas: [USER_SCHEMA], userName: "big", emails: emails(emailCount, "e") });
console.log(
  `${kind}${raised.writeLimits ? " (raised limits)" : ""} POST user with ${emailCount} e-mails: ${big.status}${typeof big.body["detail"] === "string" ? ` — ${String(big.body["detail"]).slice(0, 110)}` : ""}`,
);
const bigId = String(big.body["id"] ?? "missing");
await timed(`PATCH ${operationCount} × replace emails[value eq …].type on ${emailCount} e-mails`, "PATCH", `/Users/${bigId}`, {
  schemas: [PATCH_SCHEMA],
  Operations: Array.from({ length: operationCount }, (_, index) => ({
    op: "replace",
    path: `emails[value eq "e${index % Math.max(emailCount, 1)}@example.com"].type`,
    value: index % 2 === 0 ? "home" : "other",
  })),
});

const small = await call("POST", "acme", "/Users", acme, { schemas: [USER_SCHEMA], userName: "small", emails: emails(1, "s") });
const addCount = Number(addArg);
await timed(`PATCH add emails with ${addCount} values`, "PATCH", `/Users/${String(small.body["id"])}`, {
  schemas: [PATCH_SCHEMA],
  Operations: [{ op: "add", path: "emails", value: emails(addCount, "a").map(({ primary: _primary, ...rest }) => rest) }],
});

const bulkCount = Number(bulkArg);
await timed(`Bulk ${bulkCount} POSTs chained in reverse order`, "POST", "/Bulk", {
  schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
  Operations: Array.from({ length: bulkCount }, (_, index) => ({
    method: "POST",
    path: "/Users",
    bulkId: `b${index}`,
    data: {
      schemas: [USER_SCHEMA],
      userName: `chain${index}`,
      ...(index + 1 < bulkCount
        ? { "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { manager: { value: `bulkId:b${index + 1}` } } }
        : {}),
    },
  })),
});
server.close();
await store.close?.();
if (kind === "postgres") {
  const { default: pg } = await import("pg");
  const client = new pg.Client(postgresUrl);
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}
