/**
 * An RFC 9967 transmitter for the delivery crash test (set-delivery-killed.test.ts), built as an app
 * builds one from the public entry points, over the SQLite file `DATABASE`: serves the JWKS at
 * `/keys/:orgId/jwks.json`, prints `LISTENING <port>`, and delivers every 50 ms with a 300 ms lease
 * and short backoff, `ISSUER` as every organization's issuer.
 */
import type { AddressInfo } from "node:net";
import express from "express";
import { eventSigningKeys, securityEventDelivery, securityEventJwks } from "scimkit/events";
import { sqlEventReceiverStore, sqlSigningKeyRepository, sqlStore } from "scimkit/sql";

const store = await sqlStore({ sqlite: process.env["DATABASE"] ?? "" });
const events = store.events;
if (!events) throw new Error("the SQL store has no outbox");
const keys = eventSigningKeys(sqlSigningKeyRepository(store.db));
const delivery = securityEventDelivery({
  outbox: events,
  receivers: sqlEventReceiverStore(store.db, store.dialect),
  keys,
  issuer: () => process.env["ISSUER"] ?? "",
  intervalMs: 50,
  leaseMs: 300,
  backoff: { initialMs: 10, maxMs: 50 },
  // The test's receiver listens on 127.0.0.1.
  receiverAddressPolicy: { allowHosts: ["127.0.0.1"] },
});
const app = express();
app.get("/keys/:orgId/jwks.json", securityEventJwks(keys));
const server = app.listen(0, "127.0.0.1", () => {
  console.log(`LISTENING ${(server.address() as AddressInfo).port}`);
  delivery.start();
});
