/**
 * RFC 9967 security events as `npm start` runs them (issue 20's "done when"): a receiver — a real
 * HTTP server that verifies every SET's signature against the host's JWKS, its `typ`, issuer and
 * audience — registered through the operator API, sees each event exactly once by `jti` after the
 * host is SIGKILLed mid-delivery and restarted; and a receiver that stays down through failed pushes
 * until the backoff reaches its cap gets everything, in order per resource, when it comes back.
 * Real host processes on a SQLite file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type SetReceiver, startSetReceiver } from "../../../test/events/set-receiver.fixture.js";
import { operatorCall, until as waitUntil } from "./host-events.fixture.js";
import { type Host, killHosts, startHost } from "./host-process.fixture.js";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const OPERATOR_KEY = "operator-key-for-the-security-events-test-0123456789";
const PUBLIC_URL = "https://scim.test";
const ISSUER = `${PUBLIC_URL}/scim/Organizations/acme/v2`;
const AUDIENCE = "https://receiver.test/acme";

const scratch = mkdtempSync(join(tmpdir(), "scimkit-host-events-"));
const receivers: SetReceiver[] = [];
afterEach(async () => {
  killHosts();
  for (const receiver of receivers.splice(0)) await receiver.close();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A host on `database`, its delivery quick to take over and to retry, as a test can wait for. */
function hostOn(database: string): Host {
  return startHost({
    SCIMKIT_OPERATOR_KEY: OPERATOR_KEY,
    SCIMKIT_DEMO_DATA: "0",
    DATABASE_URL: `sqlite:${database}`,
    SCIMKIT_PUBLIC_URL: PUBLIC_URL,
    SCIMKIT_EVENT_LEASE_SECONDS: "2",
    SCIMKIT_EVENT_RETRY_MAX_SECONDS: "2",
    // The test's receivers listen on 127.0.0.1, which the address rules refuse unless allowed.
    SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS: "127.0.0.1",
  });
}

/** Where the host listens: its own address, whatever `SCIMKIT_PUBLIC_URL` tells clients. */
async function origin(host: Host): Promise<string> {
  const [, port] = await host.waitFor(/^scimkit host server listening on port (\d+)/);
  await host.waitFor(/^Security events \(RFC 9967\): on/);
  return `http://127.0.0.1:${port}`;
}

function analytics(at: string, path: string, init: RequestInit = {}): Promise<{ readonly status: number; readonly body: unknown }> {
  return operatorCall(at, OPERATOR_KEY, path, init);
}

/** Creates organization `acme` and returns a SCIM client with its token. */
async function acme(at: string): Promise<(method: string, path: string, body?: unknown) => Promise<{ readonly id: string }>> {
  const created = await analytics(at, "/organizations", { method: "POST", body: JSON.stringify({ id: "acme", name: "Acme" }) });
  expect(created.status).toBe(201);
  const { token } = (created.body as { scim: { token: string } }).scim;
  return async (method, path, body) => {
    const response = await fetch(`${at}/scim/Organizations/acme/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status, await response.clone().text()).toBeLessThan(300);
    return response.status === 204 ? { id: "" } : ((await response.json()) as { id: string });
  };
}

function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  return waitUntil(condition, what, timeoutMs);
}

interface Receiver {
  readonly id: string;
  readonly position: number;
  readonly attempts: number;
  readonly delivered: number;
  readonly lastError?: { readonly error: string };
}

/** A learner as the host's profile (spec §3) requires one. */
function learner(userName: string): unknown {
  return {
    schemas: [USER_SCHEMA],
    userName,
    name: { givenName: userName, familyName: "Tester" },
    emails: [{ type: "work", value: `${userName}@example.com`, primary: true }],
  };
}

/** A PATCH of the learner's given name. */
function rename(givenName: string): unknown {
  return { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "name.givenName", value: givenName }] };
}

/** The events of one resource as the receiver got them: event URI and the given name it carried. */
function historyOf(receiver: SetReceiver, id: string): string[] {
  return receiver.received
    .filter((set) => (set.claims["sub_id"] as { uri: string }).uri === `/Users/${id}`)
    .map((set) => {
      const [uri, payload] = Object.entries(set.claims["events"] as Record<string, { data?: { name?: { givenName?: string } } }>)[0] ?? [];
      return `${(uri ?? "").split(":").slice(-2).join(":")} ${payload?.data?.name?.givenName ?? ""}`.trim();
    });
}

describe("the host's RFC 9967 delivery", () => {
  it("advertises events, and answers the JWKS alike for an unknown organization and one without a key", async () => {
    const host = hostOn(join(scratch, "advertise.db"));
    const at = await origin(host);
    const call = await acme(at);
    await call("GET", "/Users");
    const config = (await (await fetch(`${at}/scim/Organizations/acme/v2/ServiceProviderConfig`)).json()) as Record<string, unknown>;
    expect(config["securityEvents"]).toBeDefined();
    // No key before the first receiver: the same answer as for an organization that does not exist,
    // and no key is made for either.
    const answer = async (orgId: string) => {
      const response = await fetch(`${at}/scim/Organizations/${orgId}/events/jwks.json`);
      return { status: response.status, cacheControl: response.headers.get("cache-control"), body: await response.json() };
    };
    const nobody = await answer("nobody");
    expect(nobody).toEqual({ status: 200, cacheControl: "no-store", body: { keys: [] } });
    expect(await answer("acme")).toEqual(nobody);
    expect(await answer("nobody")).toEqual(nobody);
    const added = await analytics(at, "/organizations/acme/event-receivers", {
      method: "POST",
      body: JSON.stringify({ url: "https://receiver.test/acme", audience: AUDIENCE }),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const keyed = await answer("acme");
    expect(keyed.status).toBe(200);
    expect((keyed.body as { keys: unknown[] }).keys).toHaveLength(1);
    expect(keyed.cacheControl).toBe("public, max-age=300");
  }, 120_000);

  it("delivers every event exactly once by jti, in order per resource, after the host is SIGKILLed mid-push", async () => {
    const database = join(scratch, "killed.db");
    const first = hostOn(database);
    const firstAt = await origin(first);
    const call = await acme(firstAt);
    const receiver = await startSetReceiver({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUrl: `${firstAt}/scim/Organizations/acme/events/jwks.json`,
    });
    receivers.push(receiver);
    const added = await analytics(firstAt, "/organizations/acme/event-receivers", {
      method: "POST",
      body: JSON.stringify({ url: receiver.url, audience: AUDIENCE, form: "full" }),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const receiverId = (added.body as Receiver).id;

    // The third push is verified, kept, and never answered: the host dies waiting for it.
    const held = new Promise<void>((resolve) => {
      receiver.hold = { after: 3, onHeld: resolve };
    });
    const ids: string[] = [];
    for (const userName of ["ann", "bob"]) ids.push((await call("POST", "/Users", learner(userName))).id);
    for (const round of [1, 2]) {
      for (const id of ids) {
        await call("PATCH", `/Users/${id}`, rename(`t${round}`));
      }
    }
    await held;
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    expect(receiver.received).toHaveLength(3);

    const second = hostOn(database);
    const secondAt = await origin(second);
    receiver.jwksUrl = `${secondAt}/scim/Organizations/acme/events/jwks.json`;
    await until(() => receiver.received.length >= 6, "six events at the receiver");

    expect(receiver.invalid).toEqual([]);
    expect(receiver.received).toHaveLength(6);
    expect(new Set(receiver.received.map((set) => set.jti)).size).toBe(6);
    // The unanswered push was never saved as delivered, so it came again, told apart by its jti.
    expect(receiver.arrivals.get(receiver.received[2]?.jti ?? "")).toBe(2);
    for (const [jti, count] of receiver.arrivals) if (jti !== receiver.received[2]?.jti) expect(count).toBe(1);
    // One organization key before and after the restart: the database keeps it.
    expect(new Set(receiver.received.map((set) => set.kid)).size).toBe(1);
    for (const [index, id] of ids.entries()) {
      expect(historyOf(receiver, id)).toEqual([`create:full ${["ann", "bob"][index]}`, "patch:full t1", "patch:full t2"]);
    }
    // The operator API tells where delivery stands.
    await until(async () => {
      const state = (await analytics(secondAt, `/organizations/acme/event-receivers/${receiverId}`)).body as Receiver;
      return state.position === 6 && state.attempts === 0;
    }, "the receiver's position at 6");
  }, 180_000);

  // Issue 20 asked for a receiver down for a minute. Delivery has no give-up horizon (a receiver is
  // retried until it answers), so what a minute tests is the retries themselves: the receiver stays
  // down for six failed pushes, the backoff (SCIMKIT_EVENT_RETRY_MAX_SECONDS: 2) at its cap for the
  // last ones, which is a minute's behaviour without a minute's wait.
  it("gives a receiver that was down through six failed pushes everything, in order per resource, when it comes back", async () => {
    const host = hostOn(join(scratch, "down.db"));
    const at = await origin(host);
    const call = await acme(at);
    const receiver = await startSetReceiver({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUrl: `${at}/scim/Organizations/acme/events/jwks.json`,
    });
    receivers.push(receiver);
    await receiver.goOffline();
    const added = await analytics(at, "/organizations/acme/event-receivers", {
      method: "POST",
      body: JSON.stringify({ url: receiver.url, audience: AUDIENCE, form: "full" }),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const receiverId = (added.body as Receiver).id;

    const ids: string[] = [];
    for (const userName of ["cyd", "dee"]) ids.push((await call("POST", "/Users", learner(userName))).id);
    for (const id of ids) {
      await call("PATCH", `/Users/${id}`, rename("away"));
      await call("PATCH", `/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "active", value: false }] });
    }
    await call("DELETE", `/Users/${ids[1]}`);
    // Provisioning never waited for the receiver: every write above was answered while it was down.
    // The operator API shows the failure while it lasts.
    await until(async () => {
      const state = (await analytics(at, `/organizations/acme/event-receivers/${receiverId}`)).body as Receiver;
      return state.attempts >= 6 && state.lastError !== undefined;
    }, "six failed attempts in the receiver's state");
    expect(receiver.received).toEqual([]);
    await receiver.comeBack();
    await until(() => receiver.received.length >= 9, "nine events at the receiver");

    expect(receiver.invalid).toEqual([]);
    expect(receiver.received).toHaveLength(9);
    for (const count of receiver.arrivals.values()) expect(count).toBe(1);
    const [kept, deleted] = ids as [string, string];
    // A PATCH that deactivates is reported as the patch (RFC 9967 §2.4.2), then the deactivation (§2.4.6).
    expect(historyOf(receiver, kept)).toEqual(["create:full cyd", "patch:full away", "patch:full away", "prov:deactivate"]);
    expect(historyOf(receiver, deleted)).toEqual([
      "create:full dee",
      "patch:full away",
      "patch:full away",
      "prov:deactivate",
      "prov:delete",
    ]);
  }, 180_000);
});
