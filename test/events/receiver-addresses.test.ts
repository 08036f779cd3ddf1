/**
 * Issue 27, point 2: an event receiver's URL is the tenant's to choose, so pushes follow the
 * address rules. A receiver on loopback (every spelling), private, link-local, metadata, CGNAT or
 * unique-local addresses is refused at registration naming the rule, and at every push after DNS
 * (an allowance the operator withdrew); redirects are not followed; `lastError` is in the service's
 * words, never the receiver's body; the operator's `allowHosts` admits addresses and CIDR ranges.
 * Real HTTP servers on 127.0.0.1, the memory store's outbox.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  type EventReceiverStore,
  eventSigningKeys,
  InvalidEventReceiverError,
  memoryEventReceiverStore,
  memorySigningKeyRepository,
  securityEventDelivery,
  type EventSigningKeys,
} from "scimkit/events";
import { memoryStore } from "scimkit/memory";
import type { EventOutbox } from "scimkit/store";
import { answeringServer, type AnsweringServer } from "../../src/outbound/answering-server.fixture.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A receiver on 127.0.0.1 answering every push with `reply`, closed after the test. */
async function server(reply: Parameters<typeof answeringServer>[0]): Promise<AnsweringServer> {
  const answering = await answeringServer(reply);
  cleanup.push(() => answering.close());
  return answering;
}

interface World {
  readonly outbox: EventOutbox;
  readonly receivers: EventReceiverStore;
  readonly keys: EventSigningKeys;
  /** A delivery over the world's outbox and receivers, allowing `allowHosts`. */
  delivery(allowHosts?: readonly string[]): ReturnType<typeof securityEventDelivery>;
  /** Records one event of acme. */
  record(): Promise<void>;
}

function world(): World {
  const store = memoryStore();
  const outbox = store.events;
  if (!outbox) throw new Error("the memory store has no outbox");
  const receivers = memoryEventReceiverStore();
  const keys = eventSigningKeys(memorySigningKeyRepository());
  let count = 0;
  return {
    outbox,
    receivers,
    keys,
    delivery: (allowHosts = []) =>
      securityEventDelivery({
        outbox,
        receivers,
        keys,
        issuer: () => "https://scim.example.com/scim/Organizations/acme/v2",
        backoff: { initialMs: 1, maxMs: 5 },
        requestTimeoutMs: 5000,
        onError: (error) => {
          throw error;
        },
        receiverAddressPolicy: { allowHosts, allowSetting: "SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS" },
      }),
    async record() {
      count += 1;
      const id = `00000000-0000-4000-8000-${String(count).padStart(12, "0")}`;
      await outbox.append(
        "acme",
        [{ jti: id, type: "user.created", resourceType: "User", resourceId: id, resource: { id, userName: `u${count}` }, method: "POST" }],
        { pending: false, leaseUntil: new Date(0).toISOString() },
      );
    },
  };
}

describe("event receivers and the address rules", () => {
  it("refuses every loopback spelling the issue delivered to, and private, link-local, metadata, CGNAT and unique-local hosts, naming the rule", async () => {
    const delivery = world().delivery();
    const cases: readonly [string, string][] = [
      ["http://127.0.0.1:8080/events", "127.0.0.1 is a loopback address"],
      ["http://localhost:8080/events", "localhost resolves to a loopback address"],
      ["http://[::1]:8080/events", "::1 is a loopback address"],
      ["http://2130706433:8080/events", "127.0.0.1 is a loopback address"],
      ["http://0x7f.1:8080/events", "127.0.0.1 is a loopback address"],
      ["http://127.1:8080/events", "127.0.0.1 is a loopback address"],
      ["http://0177.0.0.1:8080/events", "127.0.0.1 is a loopback address"],
      ["http://[::ffff:127.0.0.1]:8080/events", "::ffff:7f00:1 is a loopback address"],
      ["http://10.0.0.8/events", "10.0.0.8 is a private address"],
      ["https://192.168.1.20/events", "192.168.1.20 is a private address"],
      ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata service address"],
      ["http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal is the name of a cloud metadata service"],
      ["http://169.254.10.10/", "169.254.10.10 is a link-local address"],
      ["http://100.64.3.4/", "100.64.3.4 is a shared (CGNAT) address"],
      ["http://[fd00::5]/", "fd00::5 is a unique-local address"],
      ["http://[::ffff:10.1.1.1]/", "::ffff:a01:101 is a private address"],
    ];
    for (const [url, reason] of cases) {
      const refusal = await delivery.addReceiver("acme", { url }).catch((error: unknown) => error);
      expect(refusal, url).toBeInstanceOf(InvalidEventReceiverError);
      expect((refusal as Error).message, url).toBe(
        `The receiver URL's host ${reason}; ask the operator to allow it with SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS.`,
      );
    }
    expect(await delivery.receivers("acme")).toEqual([]);
    // A poll receiver's URL is never requested: it is not refused.
    expect((await delivery.addReceiver("acme", { url: "http://127.0.0.1/", delivery: "poll", authorization: "Bearer p" })).delivery).toBe(
      "poll",
    );
  });

  it("admits what the operator allows: an address and a CIDR range, and nothing beside them", async () => {
    const w = world();
    const accepting = await server((_, response) => {
      response.writeHead(202);
      response.end();
    });
    const url = `http://127.0.0.1:${accepting.port}/events`;
    await expect(w.delivery(["10.0.0.0/8"]).addReceiver("acme", { url })).rejects.toThrow(/loopback/);
    for (const allowHosts of [["127.0.0.1"], ["127.0.0.0/8"]]) {
      const delivery = w.delivery(allowHosts);
      const receiver = await delivery.addReceiver("acme", { url });
      await w.record();
      expect(await delivery.runOnce()).toBeGreaterThanOrEqual(1);
      const [state] = (await delivery.receivers("acme")).filter((candidate) => candidate.id === receiver.id);
      expect(state).toMatchObject({ delivered: 1, attempts: 0 });
      await delivery.removeReceiver("acme", receiver.id);
    }
    expect(accepting.hits.length).toBeGreaterThanOrEqual(2);
  });

  it("refuses at the push an address allowed at registration but no longer, saying why in lastError", async () => {
    const w = world();
    const accepting = await server((_, response) => {
      response.writeHead(202);
      response.end();
    });
    for (const host of ["127.0.0.1", "localhost"]) {
      const receiver = await w.delivery(["127.0.0.1", "localhost"]).addReceiver("acme", { url: `http://${host}:${accepting.port}/events` });
      await w.record();
      // The operator removed the allowance; the receiver stays registered.
      const strict = w.delivery();
      expect(await strict.runOnce()).toBe(0);
      const state = (await strict.receivers("acme")).find((candidate) => candidate.id === receiver.id);
      expect(state, host).toMatchObject({
        delivered: 0,
        attempts: 1,
        lastError: {
          error: "address",
          description: `the receiver URL's host ${host} ${host === "localhost" ? "resolves to" : "is"} a loopback address; ask the operator to allow it with SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS`,
        },
      });
      await strict.removeReceiver("acme", receiver.id);
    }
    expect(accepting.hits).toEqual([]);
  });

  it("does not follow redirects (302, 303, 307): the push fails, saying so, and the target hears nothing", async () => {
    const w = world();
    const target = await server((_, response) => {
      response.writeHead(202);
      response.end();
    });
    await w.record();
    for (const status of [302, 303, 307]) {
      const redirecting = await server((_, response) => {
        response.writeHead(status, { Location: `http://127.0.0.1:${target.port}/internal` });
        response.end("moved");
      });
      const delivery = w.delivery(["127.0.0.1"]);
      const receiver = await delivery.addReceiver("acme", { url: `http://127.0.0.1:${redirecting.port}/events` }, "beginning");
      await delivery.runOnce();
      const state = (await delivery.receivers("acme")).find((candidate) => candidate.id === receiver.id);
      expect(state).toMatchObject({
        delivered: 0,
        attempts: 1,
        lastError: {
          status,
          error: "redirect",
          description: `the receiver answered ${status} (a redirect); redirects are not followed: register the URL the receiver is at`,
        },
      });
      expect(redirecting.hits).toEqual(["POST /events"]);
      await delivery.removeReceiver("acme", receiver.id);
    }
    expect(target.hits).toEqual([]);
  });

  it("never keeps the receiver's answer in lastError: a status, a registered RFC 8935 code, our own words", async () => {
    const w = world();
    await w.record();
    const SECRET = "root:x:0:0 internal-dashboard-token=5f1e";
    const answers: readonly [number, string, string, Record<string, unknown>][] = [
      [500, "text/plain", SECRET, { status: 500, error: "http", description: "the receiver answered HTTP 500" }],
      [
        404,
        "text/html",
        `<html><title>${SECRET}</title></html>`,
        { status: 404, error: "http", description: "the receiver answered HTTP 404" },
      ],
      [503, "application/json", JSON.stringify({ err: SECRET, description: SECRET }), { status: 503, error: "http" }],
      [
        400,
        "application/json",
        JSON.stringify({ err: "invalid_audience", description: SECRET }),
        {
          status: 400,
          error: "invalid_audience",
          description: "the receiver does not accept the SET's audience (aud): check the receiver's audience (invalid_audience, HTTP 400)",
        },
      ],
      [
        401,
        "application/json",
        JSON.stringify({ err: "authentication_failed", description: SECRET }),
        { status: 401, error: "authentication_failed" },
      ],
    ];
    for (const [status, type, body, expected] of answers) {
      const answering = await server((_, response) => {
        response.writeHead(status, { "Content-Type": type });
        response.end(body);
      });
      const delivery = w.delivery(["127.0.0.1"]);
      const receiver = await delivery.addReceiver("acme", { url: `http://127.0.0.1:${answering.port}/events` }, "beginning");
      await delivery.runOnce();
      const state = (await delivery.receivers("acme")).find((candidate) => candidate.id === receiver.id);
      expect(state?.lastError, `${status} ${body}`).toMatchObject(expected);
      expect(JSON.stringify(state), `${status} ${body}`).not.toContain("internal-dashboard");
      await delivery.removeReceiver("acme", receiver.id);
    }
    // Nothing listening: "could not connect", not the socket's error text.
    const closed = await server(() => undefined);
    await cleanup.pop()?.();
    const delivery = w.delivery(["127.0.0.1"]);
    const receiver = await delivery.addReceiver("acme", { url: `http://127.0.0.1:${closed.port}/events` }, "beginning");
    await delivery.runOnce();
    const state = (await delivery.receivers("acme")).find((candidate) => candidate.id === receiver.id);
    expect(state?.lastError).toMatchObject({
      error: "network",
      description: "could not connect to the receiver, or the connection (or its TLS handshake) failed before it answered",
    });
    expect(JSON.stringify(state)).not.toMatch(/ECONNREFUSED/);
  });
});
