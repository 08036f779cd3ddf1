/**
 * RFC 9967 delivery (issue 20) in one process, over the memory store: writes through the router
 * reach a real HTTP receiver as SETs it verifies against our JWKS (signature, typ, issuer,
 * audience), each event once by jti, under the RFC 9967 URIs, in order per resource; a receiver that
 * is down gets everything in order when it returns, and its failures are readable meanwhile; a SET
 * the receiver rejects (400) is recorded and skipped.
 */
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createScimRouter } from "scimkit";
import {
  eventSigningKeys,
  memoryEventReceiverStore,
  memorySigningKeyRepository,
  SECURITY_EVENT_URIS,
  securityEventDelivery,
  securityEventJwks,
  securityEventPollEndpoint,
  type ScimEvent,
  type SecurityEventDelivery,
} from "scimkit/events";
import { memoryStore } from "scimkit/memory";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { startSetReceiver, type SetReceiver } from "./set-receiver.fixture.js";

const TOKEN = "delivery-test-token";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const AUDIENCE = "https://receiver.test/acme";
const PROV = "urn:ietf:params:scim:event:prov";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function world(form: "full" | "notice" = "full") {
  const store = memoryStore();
  const keys = eventSigningKeys(memorySigningKeyRepository());
  const events: ScimEvent[] = [];
  const app = express();
  app.get("/keys/:orgId/jwks.json", securityEventJwks(keys));
  // Routed before the delivery exists: the handler reads it when a poll comes.
  let delivery: SecurityEventDelivery | undefined;
  app.post("/events/:orgId/poll/:receiverId", (request, response, next) => {
    if (!delivery) throw new Error("no delivery yet");
    securityEventPollEndpoint(delivery)(request, response, next);
  });
  app.use(
    "/scim/Organizations/:orgId/v2",
    createScimRouter({
      durableEvents: true,
      store,
      auth: { verify: async (token, orgId) => (token === TOKEN ? { orgId } : null) },
      onEvent: (event) => {
        events.push(event);
      },
      securityEvents: { eventUris: SECURITY_EVENT_URIS },
    }),
  );
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  cleanup.push(() => new Promise((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${base}/scim/Organizations/acme/v2`;
  const receiver = await startSetReceiver({ issuer, audience: AUDIENCE, jwksUrl: `${base}/keys/acme/jwks.json` });
  cleanup.push(() => receiver.close());
  const outbox = store.events;
  if (!outbox) throw new Error("the memory store has no outbox");
  delivery = securityEventDelivery({
    outbox,
    receivers: memoryEventReceiverStore(),
    keys,
    issuer: (orgId) => `${base}/scim/Organizations/${orgId}/v2`,
    backoff: { initialMs: 1, maxMs: 5 },
    onError: (error) => {
      throw error;
    },
    // The test's receiver listens on 127.0.0.1, which the address rules refuse unless allowed.
    receiverAddressPolicy: { allowHosts: ["127.0.0.1"] },
  });
  const registered = await delivery.addReceiver("acme", { url: receiver.url, audience: AUDIENCE, form });
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${base}/scim/Organizations/acme/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/scim+json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>);
  };
  return { store, delivery, receiver, registered, events, call, base, issuer };
}

/** Runs passes until the receiver holds `count` SETs (each pass ends at a failure; backoff is short). */
async function deliverUntil(delivery: SecurityEventDelivery, receiver: SetReceiver, count: number): Promise<void> {
  while (receiver.received.length < count) {
    await delivery.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A receiver that accepts every push (202) and counts them by path, for many organizations at once. */
async function countingReceiver(): Promise<{ readonly url: string; readonly pushes: Map<string, number>; total(): number }> {
  const pushes = new Map<string, number>();
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      pushes.set(request.url ?? "", (pushes.get(request.url ?? "") ?? 0) + 1);
      response.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  cleanup.push(() => new Promise((resolve) => server.close(() => resolve())));
  const total = (): number => [...pushes.values()].reduce((sum, count) => sum + count, 0);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pushes, total };
}

/** 25 organizations with one push receiver each at `url`/<org>, after a tenant with 20 idle receivers, each organization with `events` events. */
async function crowd(url: string, events: number) {
  const store = memoryStore();
  const outbox = store.events;
  if (!outbox) throw new Error("the memory store has no outbox");
  const delivery = securityEventDelivery({
    outbox,
    // Without the outbox: a store that cannot tell an idle receiver, the case the loop must survive.
    receivers: memoryEventReceiverStore(),
    keys: eventSigningKeys(memorySigningKeyRepository()),
    issuer: (orgId) => `https://scim.test/${orgId}`,
    intervalMs: 60_000,
    receiverAddressPolicy: { allowHosts: ["127.0.0.1"] },
  });
  for (let index = 0; index < 20; index += 1) await delivery.addReceiver("aaa", { url: `${url}/aaa/${index}` });
  const orgs = Array.from({ length: 25 }, (_, index) => `org-${String(index).padStart(2, "0")}`);
  for (const orgId of orgs) {
    await delivery.addReceiver(orgId, { url: `${url}/${orgId}` });
    const inputs = Array.from({ length: events }, (_, index) => ({
      jti: crypto.randomUUID(),
      type: "user.created",
      resourceType: "User",
      resourceId: `u${index}`,
      resource: { schemas: [USER], id: `u${index}`, userName: `u${index}` },
    }));
    await outbox.append(orgId, inputs, { pending: false, leaseUntil: new Date(0).toISOString() });
  }
  return { delivery, orgs };
}

function eventUris(receiver: SetReceiver): string[] {
  return receiver.received.map((set) => Object.keys(set.claims["events"] as object)[0] ?? "");
}

describe("RFC 9967 delivery", () => {
  it("pushes each committed event as a signed SET, once per jti, under the RFC 9967 event URIs", async () => {
    const { delivery, receiver, events, call } = await world("full");
    const ann = (await call("POST", "/Users", { schemas: [USER], userName: "ann", externalId: "e-ann" })) as { id: string };
    await call("PATCH", `/Users/${ann.id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Ann" }] });
    await call("PUT", `/Users/${ann.id}`, { schemas: [USER], userName: "ann", externalId: "e-ann", active: false });
    await call("DELETE", `/Users/${ann.id}`);

    expect(await delivery.runOnce()).toBe(5);
    expect(receiver.invalid).toEqual([]);
    expect(eventUris(receiver)).toEqual([
      `${PROV}:create:full`,
      `${PROV}:patch:full`,
      `${PROV}:put:full`,
      `${PROV}:deactivate`,
      `${PROV}:delete`,
    ]);
    // The jti is the event's, as the in-process listener saw it.
    expect(receiver.received.map((set) => set.jti)).toEqual(events.map((event) => event.jti));
    const created = receiver.received[0]?.claims;
    expect(created?.["sub_id"]).toEqual({ format: "scim", uri: `/Users/${ann.id}`, externalId: "e-ann" });
    expect(created?.["events"]).toMatchObject({ [`${PROV}:create:full`]: { data: { userName: "ann", id: ann.id } } });
    expect(typeof created?.["toe"]).toBe("number");
    // Nothing new: nothing pushed again.
    expect(await delivery.runOnce()).toBe(0);
    expect([...receiver.arrivals.values()].every((count) => count === 1)).toBe(true);
    const [state] = await delivery.receivers("acme");
    expect(state).toMatchObject({ delivered: 5, rejected: 0, attempts: 0, position: 5 });
    // Every receiver has them and the listener too: they can go, and delivery goes on after them.
    expect(await delivery.prune("acme")).toBe(5);
    await call("POST", "/Users", { schemas: [USER], userName: "after-prune" });
    expect(await delivery.runOnce()).toBe(1);
    expect(receiver.received.at(-1)?.claims["sub_id"]).toMatchObject({ format: "scim" });
    expect(events.at(-1)?.sequence).toBe(6);
  });

  it("serves every due receiver once in a pass, past a tenant with 20 idle receivers, and the pass ends", async () => {
    const counting = await countingReceiver();
    const { delivery, orgs } = await crowd(counting.url, 1);
    expect(await delivery.runOnce()).toBe(25);
    expect([...counting.pushes.keys()].sort()).toEqual(orgs.map((orgId) => `/${orgId}`));
    expect(await delivery.runOnce()).toBe(0);
    expect(counting.total()).toBe(25);
  });

  it("stops promptly while receivers are due: the pass claims nothing more and each round ends after its push", async () => {
    const counting = await countingReceiver();
    const { delivery } = await crowd(counting.url, 40);
    delivery.start();
    while (counting.total() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await delivery.stop();
    const atStop = counting.total();
    // Receivers were still due: most of the 1,000 events were not pushed yet, and none is after the stop.
    expect(atStop).toBeLessThan(25 * 40);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counting.total()).toBe(atStop);
  });

  it("sends notices without values to a notice receiver", async () => {
    const { delivery, receiver, call } = await world("notice");
    await call("POST", "/Users", { schemas: [USER], userName: "bob", displayName: "Bob" });
    await delivery.runOnce();
    expect(receiver.received[0]?.claims["events"]).toEqual({
      [`${PROV}:create:notice`]: { attributes: expect.arrayContaining(["userName", "displayName"]), version: expect.any(String) },
    });
    expect(JSON.stringify(receiver.received[0]?.claims)).not.toContain("Bob");
  });

  it("gives a receiver that was down everything, in order per resource, and shows its failures meanwhile", async () => {
    const { delivery, receiver, call } = await world("full");
    receiver.down = true;
    const ids: string[] = [];
    for (const name of ["a", "b", "c"])
      ids.push(((await call("POST", "/Users", { schemas: [USER], userName: name })) as { id: string }).id);
    for (let round = 0; round < 3; round++) {
      for (const id of ids) {
        await call("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "title", value: `t${round}` }] });
      }
    }
    // Provisioning went on while the receiver was down; passes fail and back off.
    while (receiver.refusedWhileDown < 3) {
      await delivery.runOnce();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const [failing] = await delivery.receivers("acme");
    expect(failing?.attempts).toBeGreaterThanOrEqual(1);
    expect(failing?.lastError).toMatchObject({ status: 503, error: "http" });
    expect(failing?.position).toBe(0);

    receiver.down = false;
    await deliverUntil(delivery, receiver, 12);
    expect(receiver.invalid).toEqual([]);
    for (const id of ids) {
      const titles = receiver.received
        .filter((set) => (set.claims["sub_id"] as { uri: string }).uri === `/Users/${id}`)
        .map((set) => (Object.values(set.claims["events"] as object)[0] as { data: { title?: string } }).data.title ?? "");
      expect(titles).toEqual(["", "t0", "t1", "t2"]);
    }
    const [recovered] = await delivery.receivers("acme");
    expect(recovered).toMatchObject({ attempts: 0, delivered: 12, position: 12 });
  });

  it("records a SET the receiver rejects for good and goes on with the next", async () => {
    const { delivery, receiver, call } = await world("full");
    const ann = (await call("POST", "/Users", { schemas: [USER], userName: "ann" })) as { id: string };
    await delivery.runOnce();
    // The receiver now expects another audience: it answers 400 invalid_audience (RFC 8935 §2.4).
    const wrong = await delivery.addReceiver("acme", { url: receiver.url, audience: "https://someone-else.test/", form: "notice" });
    await call("PATCH", `/Users/${ann.id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "title", value: "x" }] });
    await delivery.runOnce();
    const state = (await delivery.receivers("acme")).find((candidate) => candidate.id === wrong.id);
    expect(state).toMatchObject({
      rejected: 1,
      delivered: 0,
      position: 2,
      attempts: 0,
      lastError: { status: 400, error: "invalid_audience" },
    });
    expect(receiver.invalid.length).toBe(1);
  });

  it("tries a SET refused with invalid_key again, as a receiver's cached JWKS may not know a new key yet, then rejects it", async () => {
    const { delivery, receiver, registered, call } = await world("full");
    // Refused twice, then accepted: delivered, nothing rejected, the failures readable meanwhile.
    receiver.refuseKeys = 2;
    await call("POST", "/Users", { schemas: [USER], userName: "ann" });
    await delivery.runOnce();
    const refused = (await delivery.receivers("acme")).find((candidate) => candidate.id === registered.id);
    expect(refused).toMatchObject({ position: 0, attempts: 1, rejected: 0, lastError: { status: 400, error: "invalid_key" } });
    await deliverUntil(delivery, receiver, 1);
    const delivered = (await delivery.receivers("acme")).find((candidate) => candidate.id === registered.id);
    expect(delivered).toMatchObject({ position: 1, attempts: 0, rejected: 0, delivered: 1 });
    // Refused past `invalidKeyAttempts` (10): rejected for good, and the next event goes on.
    receiver.refuseKeys = 10;
    await call("POST", "/Users", { schemas: [USER], userName: "bob" });
    // Until rejected (bounded): a pass that comes before the backoff ends does not count an attempt.
    for (let pass = 0; pass < 500; pass++) {
      await delivery.runOnce();
      if ((await delivery.receivers("acme")).find((candidate) => candidate.id === registered.id)?.rejected === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 6));
    }
    const rejected = (await delivery.receivers("acme")).find((candidate) => candidate.id === registered.id);
    expect(rejected).toMatchObject({ position: 2, attempts: 0, rejected: 1, delivered: 1, lastError: { error: "invalid_key" } });
    await call("POST", "/Users", { schemas: [USER], userName: "cyd" });
    await deliverUntil(delivery, receiver, 2);
    expect(receiver.received).toHaveLength(2);
  });

  it("advertises the event URIs in /ServiceProviderConfig (RFC 9967 §4)", async () => {
    const { base } = await world();
    const config = (await (await fetch(`${base}/scim/Organizations/acme/v2/ServiceProviderConfig`)).json()) as Record<string, unknown>;
    expect(config["securityEvents"]).toEqual({ eventUris: [...SECURITY_EVENT_URIS], asyncRequest: "none" });
  });

  it("lets a poll receiver fetch its SETs and acknowledge them in order (RFC 8936)", async () => {
    const { delivery, call, base, issuer } = await world();
    const poller = await delivery.addReceiver("acme", {
      url: "https://poller.test/",
      delivery: "poll",
      authorization: "Bearer poll-secret",
      audience: AUDIENCE,
      form: "notice",
    });
    // Kept as its SHA-256 digest, as tokens are: the store holds no usable credential.
    const kept = (await delivery.receivers("acme")).find((receiver) => receiver.id === poller.id);
    expect(kept?.authorization).toBe(createHash("sha256").update("Bearer poll-secret").digest("hex"));
    expect(JSON.stringify(await delivery.receivers("acme"))).not.toContain("poll-secret");
    expect(await delivery.authorizesPoll("acme", poller.id, "Bearer poll-secret")).toBe(true);
    expect(await delivery.authorizesPoll("acme", poller.id, kept?.authorization)).toBe(false);
    expect(await delivery.authorizesPoll("acme", "unknown", "Bearer poll-secret")).toBe(false);
    for (const userName of ["p1", "p2", "p3"]) await call("POST", "/Users", { schemas: [USER], userName });
    const jwks = createRemoteJWKSet(new URL(`${base}/keys/acme/jwks.json`));
    const poll = async (body: unknown, authorization = "Bearer poll-secret") =>
      fetch(`${base}/events/acme/poll/${poller.id}`, {
        method: "POST",
        headers: { Authorization: authorization, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const sets = async (body: unknown): Promise<{ jtis: string[]; moreAvailable: boolean }> => {
      const response = await poll(body);
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { sets: Record<string, string>; moreAvailable: boolean };
      for (const [jti, token] of Object.entries(answer.sets)) {
        const { payload } = await jwtVerify(token, jwks, { issuer, audience: AUDIENCE, typ: "secevent+jwt", algorithms: ["ES256"] });
        expect(payload.jti).toBe(jti);
      }
      return { jtis: Object.keys(answer.sets), moreAvailable: answer.moreAvailable };
    };
    const first = await sets({ maxEvents: 2 });
    expect(first.jtis).toHaveLength(2);
    expect(first.moreAvailable).toBe(true);
    // Only the first acknowledged: the second comes again, then the third.
    const second = await sets({ ack: [first.jtis[0]], maxEvents: 10 });
    expect(second).toEqual({ jtis: [first.jtis[1], expect.any(String)], moreAvailable: false });
    const third = await sets({
      ack: [second.jtis[0]],
      setErrs: { [second.jtis[1] ?? ""]: { err: "invalid_audience", description: "no" } },
    });
    expect(third).toEqual({ jtis: [], moreAvailable: false });
    const state = (await delivery.receivers("acme")).find((receiver) => receiver.id === poller.id);
    expect(state).toMatchObject({ delivered: 2, rejected: 1, position: 3, lastError: { jti: second.jtis[1], error: "invalid_audience" } });
    // The push loop leaves a poll receiver alone.
    expect(await delivery.runOnce()).toBe(3);
    expect((await poll({}, "Bearer wrong")).status).toBe(401);
    const malformed = await poll({ ack: "all" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ err: "invalid_request", description: expect.stringMatching(/ack/) });
    await expect(delivery.addReceiver("acme", { url: "https://p.test/", delivery: "poll" })).rejects.toThrow(/authorization/);
  });

  it("refuses a receiver past maxReceiversPerOrganization, naming the bound, per organization", async () => {
    const { delivery } = await world();
    // `world` registered one already.
    for (let index = 1; index < 20; index += 1) await delivery.addReceiver("acme", { url: `https://r.test/${index}` });
    const refused = delivery.addReceiver("acme", { url: "https://r.test/21" });
    await expect(refused).rejects.toThrow(/20 event receivers, the most this service allows \(maxReceiversPerOrganization\)/);
    await expect(refused).rejects.toMatchObject({ name: "InvalidEventReceiverError", quota: 20 });
    expect(await delivery.receivers("acme")).toHaveLength(20);
    await delivery.addReceiver("globex", { url: "https://r.test/globex" });
  });

  it("refuses a receiver it could never deliver to, saying why", async () => {
    const { delivery } = await world();
    await expect(delivery.addReceiver("acme", { url: "not a url" })).rejects.toThrow(/not an absolute URL/);
    await expect(delivery.addReceiver("acme", { url: "ftp://x.test/" })).rejects.toThrow(/https/);
    await expect(delivery.addReceiver("acme", { url: "https://x.test/", events: ["urn:x" as never] })).rejects.toThrow(/RFC 9967/);
  });
});
