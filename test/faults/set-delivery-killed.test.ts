/**
 * RFC 9967 delivery survives a SIGKILL (issue 20): the delivering process dies while a receiver
 * holds a push unanswered; the next process on the same database pushes again from the last saved
 * position after the lease, signed with the same organization key, and the receiver — a real HTTP
 * server verifying every SET against the JWKS — ends with every event exactly once by jti, in order
 * per resource. Real processes over a real SQLite file.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import express from "express";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createScimRouter } from "scimkit";
import { eventSigningKeys, securityEventDelivery } from "scimkit/events";
import { sqlEventReceiverStore, sqlSigningKeyRepository, sqlStore } from "scimkit/sql";
import { compiledSource } from "../compiled-source.fixture.js";
import { startSetReceiver } from "../events/set-receiver.fixture.js";

const scratch = mkdtempSync(join(tmpdir(), "scimkit-set-delivery-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const running: ChildProcessWithoutNullStreams[] = [];
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const step of cleanup.splice(0).reverse()) await step();
});

const TOKEN = "set-delivery-token";
const ISSUER = "https://scim.test/scim/Organizations/acme/v2";
const AUDIENCE = "https://receiver.test/acme";

function startTransmitter(database: string): { child: ChildProcessWithoutNullStreams; port: Promise<number> } {
  const child = spawn(process.execPath, [compiledSource("test/faults/set-delivery-child.ts")], {
    env: { ...process.env, DATABASE: database, ISSUER },
    stdio: ["pipe", "pipe", "pipe"],
  });
  running.push(child);
  const errors: string[] = [];
  createInterface({ input: child.stderr }).on("line", (line) => errors.push(line));
  const port = new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^LISTENING (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", () => reject(new Error(`transmitter exited early:\n${errors.join("\n")}`)));
  });
  return { child, port };
}

describe("RFC 9967 delivery across a SIGKILL", () => {
  it("delivers every event exactly once by jti, in order per resource, after the transmitter dies mid-push", async () => {
    const database = join(scratch, "scim.db");
    const store = await sqlStore({ sqlite: database });
    cleanup.push(() => store.close());
    const app = express();
    app.use(
      "/scim/Organizations/:orgId/v2",
      createScimRouter({ durableEvents: true, store, auth: { verify: async (token, orgId) => (token === TOKEN ? { orgId } : null) } }),
    );
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    cleanup.push(() => new Promise((resolve) => server.close(() => resolve())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/scim/Organizations/acme/v2`;
    const call = async (method: string, path: string, body: unknown): Promise<{ id: string }> => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/scim+json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBeLessThan(300);
      return (await response.json()) as { id: string };
    };

    const receiver = await startSetReceiver({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: "http://127.0.0.1:1/unset" });
    cleanup.push(() => receiver.close());
    const outbox = store.events;
    if (!outbox) throw new Error("the SQL store has no outbox");
    // Registered here, through the library API; delivered by the child processes.
    const registry = securityEventDelivery({
      outbox,
      receivers: sqlEventReceiverStore(store.db, store.dialect),
      keys: eventSigningKeys(sqlSigningKeyRepository(store.db)),
      issuer: () => ISSUER,
      // The test's receiver listens on 127.0.0.1.
      receiverAddressPolicy: { allowHosts: ["127.0.0.1"] },
    });
    const registered = await registry.addReceiver("acme", { url: receiver.url, audience: AUDIENCE, form: "full" });

    const ids: string[] = [];
    for (const userName of ["ann", "bob"]) {
      ids.push((await call("POST", "/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName })).id);
    }
    for (const round of [1, 2]) {
      for (const id of ids) {
        await call("PATCH", `/Users/${id}`, {
          schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
          Operations: [{ op: "replace", path: "title", value: `t${round}` }],
        });
      }
    }
    const recorded = await outbox.read({ orgId: "acme", after: 0, limit: 100 });
    expect(recorded).toHaveLength(6);

    // The third push is received and verified, and never answered: the transmitter dies waiting.
    const held = new Promise<void>((resolve) => {
      receiver.hold = { after: 3, onHeld: resolve };
    });
    const first = startTransmitter(database);
    receiver.jwksUrl = `http://127.0.0.1:${await first.port}/keys/acme/jwks.json`;
    await held;
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    expect(receiver.received).toHaveLength(3);

    const second = startTransmitter(database);
    receiver.jwksUrl = `http://127.0.0.1:${await second.port}/keys/acme/jwks.json`;
    while (receiver.received.length < 6) await new Promise((resolve) => setTimeout(resolve, 20));

    expect(receiver.invalid).toEqual([]);
    expect(receiver.received.map((set) => set.jti)).toEqual(recorded.map((event) => event.jti));
    // The unanswered push was never saved, so it came again: at least once, told apart by its jti.
    expect(receiver.arrivals.get(recorded[2]?.jti ?? "")).toBe(2);
    // Signed by the same organization key before and after the restart.
    expect(new Set(receiver.received.map((set) => set.kid)).size).toBe(1);
    for (const id of ids) {
      const titles = receiver.received
        .filter((set) => (set.claims["sub_id"] as { uri: string }).uri === `/Users/${id}`)
        .map((set) => (Object.values(set.claims["events"] as object)[0] as { data: { title?: string } }).data.title ?? "");
      expect(titles).toEqual(["", "t1", "t2"]);
    }
    // The delivery state says so too, once the second transmitter has saved its last push.
    for (;;) {
      const state = (await registry.receivers("acme")).find((candidate) => candidate.id === registered.id);
      if (state?.position === 6) {
        expect(state.attempts).toBe(0);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }, 60_000);
});
