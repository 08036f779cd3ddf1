/**
 * A SCIM host for the event-outbox crash test (event-outbox-killed.test.ts), as an app builds one
 * from the public entry points, over the SQLite file `DATABASE`. `MODE` says what its `onEvent` does:
 * `hang` prints `ENTERED <jti>` and never returns (the parent kills it there); `deliver` appends each
 * event to the file `LOG` as a JSON line, recovering pending events every 50 ms with a 200 ms lease;
 * `recover-once` serves nothing, runs one recovery pass and prints `RECOVERED <n>`.
 */
import { appendFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import express from "express";
import { createScimRouter } from "scimkit";
import { recoverPendingEvents, type ScimEvent } from "scimkit/events";
import { sqlStore } from "scimkit/sql";

const mode = process.env["MODE"] ?? "deliver";
const database = process.env["DATABASE"] ?? "";
const log = process.env["LOG"] ?? "";
const TOKEN = "outbox-test-token";
const LEASE_MS = 200;

const store = await sqlStore({ sqlite: database });
const record = (event: ScimEvent): void => {
  appendFileSync(log, `${JSON.stringify({ jti: event.jti, sequence: event.sequence, type: event.type, id: event.id })}\n`);
  console.log(`DELIVERED ${event.jti}`);
};

if (mode === "recover-once") {
  const events = store.events;
  if (!events) throw new Error("the SQL store has no outbox");
  const delivered = await recoverPendingEvents({
    outbox: events,
    emit: async (event) => record(event),
    onError: (error) => console.error(error),
    leaseMs: LEASE_MS,
    batchSize: 100,
  });
  console.log(`RECOVERED ${delivered}`);
  await store.close();
} else {
  const app = express();
  app.use(
    "/scim/Organizations/:orgId/v2",
    createScimRouter({
      durableEvents: true,
      store,
      auth: { verify: async (token, orgId) => (token === TOKEN ? { orgId } : null) },
      onEvent:
        mode === "hang"
          ? (event) => {
              console.log(`ENTERED ${event.jti}`);
              return new Promise<void>(() => {});
            }
          : record,
      onError: (error) => console.error(error),
      eventRecovery: { leaseMs: LEASE_MS, intervalMs: 50 },
    }),
  );
  const server = app.listen(0, "127.0.0.1", () => {
    console.log(`LISTENING ${(server.address() as AddressInfo).port}`);
  });
}
