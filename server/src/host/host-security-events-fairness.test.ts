/**
 * The host's push loop serves every organization (issue 27, HIGH 1): with 25 organizations of one
 * push receiver each — more than one claim of 20 — every receiver gets its event at the first
 * attempt, none needing a retry; and SIGTERM stops the host (exit 0) while receivers are due. On main the loop claimed the same 20 caught-up receivers
 * forever: 5 never got their event, and SIGTERM never completed. Real host processes on memory and
 * on a SQLite file, real receivers verifying every SET.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type SetReceiver, startSetReceiver } from "../../../test/events/set-receiver.fixture.js";
import { operatorCall, until as waitUntil } from "./host-events.fixture.js";
import { type Host, killHosts, startHost } from "./host-process.fixture.js";

const OPERATOR_KEY = "operator-key-for-the-event-fairness-test-0123456789";
const PUBLIC_URL = "https://scim.test";
const ORGANIZATIONS = 25;

const scratch = mkdtempSync(join(tmpdir(), "scimkit-host-event-fairness-"));
const receivers: SetReceiver[] = [];
afterEach(async () => {
  killHosts();
  for (const receiver of receivers.splice(0)) await receiver.close();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface ReceiverState {
  readonly attempts: number;
  readonly delivered: number;
  readonly lastError?: unknown;
}

function analytics(at: string, path: string, init: RequestInit = {}): Promise<{ readonly status: number; readonly body: unknown }> {
  return operatorCall(at, OPERATOR_KEY, path, init);
}

function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 90_000): Promise<void> {
  return waitUntil(condition, what, timeoutMs);
}

/** One organization with its receiver, as registered through the operator API. */
interface Tenant {
  readonly orgId: string;
  readonly receiver: SetReceiver;
  readonly receiverId: string;
}

/**
 * A host on `database` (memory when absent) whose failed pushes would wait an hour before a retry:
 * a receiver served only by a retry would not be served within the test.
 */
async function hostOn(database: string | undefined): Promise<{ readonly host: Host; readonly at: string }> {
  const host = startHost({
    SCIMKIT_OPERATOR_KEY: OPERATOR_KEY,
    SCIMKIT_DEMO_DATA: "0",
    DATABASE_URL: database === undefined ? "memory:" : `sqlite:${database}`,
    SCIMKIT_PUBLIC_URL: PUBLIC_URL,
    SCIMKIT_EVENT_RETRY_MAX_SECONDS: "3600",
    // The receivers listen on 127.0.0.1, which the receiver address rules refuse unless allowed.
    SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS: "127.0.0.1",
  });
  const [, port] = await host.waitFor(/^scimkit host server listening on port (\d+)/);
  await host.waitFor(/^Security events \(RFC 9967\): on/);
  return { host, at: `http://127.0.0.1:${port}` };
}

/**
 * Creates `ORGANIZATIONS` organizations, registers a receiver for each (handed to `prepare` before
 * any write), then writes one user in each.
 */
async function tenants(at: string, prepare: (receiver: SetReceiver) => void = () => {}): Promise<readonly Tenant[]> {
  const created: (Tenant & { readonly token: string })[] = [];
  for (let index = 0; index < ORGANIZATIONS; index += 1) {
    const orgId = `org-${String(index).padStart(2, "0")}`;
    const organization = await analytics(at, "/organizations", { method: "POST", body: JSON.stringify({ id: orgId, name: orgId }) });
    expect(organization.status, JSON.stringify(organization.body)).toBe(201);
    const audience = `https://receiver.test/${orgId}`;
    const receiver = await startSetReceiver({
      issuer: `${PUBLIC_URL}/scim/Organizations/${orgId}/v2`,
      audience,
      jwksUrl: `${at}/scim/Organizations/${orgId}/events/jwks.json`,
    });
    receivers.push(receiver);
    prepare(receiver);
    const added = await analytics(at, `/organizations/${orgId}/event-receivers`, {
      method: "POST",
      body: JSON.stringify({ url: receiver.url, audience, form: "notice" }),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const { token } = (organization.body as { scim: { token: string } }).scim;
    created.push({ orgId, receiver, receiverId: (added.body as { id: string }).id, token });
  }
  for (const { orgId, token } of created) {
    const response = await fetch(`${at}/scim/Organizations/${orgId}/v2/Users`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" },
      body: JSON.stringify({
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
        userName: `learner@${orgId}.test`,
        name: { givenName: "Lee", familyName: orgId },
        emails: [{ type: "work", value: `learner@${orgId}.test`, primary: true }],
      }),
    });
    expect(response.status, await response.text()).toBe(201);
  }
  return created;
}

for (const [name, database] of [
  ["memory", undefined],
  ["SQLite", "sqlite"],
] as const) {
  describe(`the host's push loop with ${ORGANIZATIONS} organizations (${name})`, () => {
    it("delivers every organization's event at the first attempt: no receiver waits for a retry", async () => {
      const { at } = await hostOn(database && join(scratch, `fair-${name}.db`));
      const all = await tenants(at);
      await until(() => all.every(({ receiver }) => receiver.received.length === 1), "an event at every receiver");
      for (const { orgId, receiver, receiverId } of all) {
        expect(receiver.invalid, orgId).toEqual([]);
        expect(receiver.arrivals.size, orgId).toBe(1);
        await until(async () => {
          const state = (await analytics(at, `/organizations/${orgId}/event-receivers/${receiverId}`)).body as ReceiverState;
          return state.delivered === 1;
        }, `${orgId}'s receiver's state`);
        const state = (await analytics(at, `/organizations/${orgId}/event-receivers/${receiverId}`)).body as ReceiverState;
        expect(state.attempts, orgId).toBe(0);
        expect(state.lastError, orgId).toBeUndefined();
      }
    }, 240_000);

    it("stops on SIGTERM, exit code 0, while receivers are due", async () => {
      const { host, at } = await hostOn(database && join(scratch, `sigterm-${name}.db`));
      const all = await tenants(at);
      // A full claim's worth served: on main the loop then claimed those 20 caught-up receivers
      // again and again, and the stop waited for a pass that never ended.
      await until(() => all.filter(({ receiver }) => receiver.received.length > 0).length >= 20, "20 receivers served");
      const exited = new Promise<number | null>((resolve) => host.child.once("exit", (code) => resolve(code)));
      host.child.kill("SIGTERM");
      // Generous, for a loaded machine: the host's grace period is 10 s.
      const code = await Promise.race([
        exited,
        new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 90_000)),
      ]);
      expect(code).toBe(0);
      expect(host.lines).toContain("Store closed");
    }, 240_000);
  });
}
