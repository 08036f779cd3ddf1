/**
 * SIGTERM, as an orchestrator stops a replica (issue 7, Faults): the host stops accepting
 * connections, lets the requests in flight finish within its grace period
 * (`SCIMKIT_SHUTDOWN_GRACE_MS`), cuts whatever outlasts it, closes the store and exits 0. The slow
 * request is a real one: a client that sends half its body, then the rest.
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killHosts, startHost, type Host } from "../../src/host/host-process.fixture.js";

const TOKEN = "token-acme-shutdown-0123456789abcdef0123456789";
const scratch = mkdtempSync(join(tmpdir(), "scimkit-shutdown-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(killHosts);

const body = (userName: string): string =>
  JSON.stringify({
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    userName,
    name: { givenName: "Slow", familyName: "Client" },
    emails: [{ value: userName, type: "work" }],
  });

/** A POST whose headers and first half of the body are sent now; `finish()` sends the rest. */
function slowCreate(
  base: string,
  userName: string,
): { readonly request: ClientRequest; readonly response: Promise<IncomingMessage & { text: string }>; finish(): void } {
  const text = body(userName);
  const url = new URL(`${base}/Users`);
  const request = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: "POST",
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/scim+json", "Content-Length": Buffer.byteLength(text) },
  });
  const response = new Promise<IncomingMessage & { text: string }>((resolve, reject) => {
    request.once("response", (message: IncomingMessage) => {
      let received = "";
      message.setEncoding("utf8");
      message.on("data", (chunk: string) => (received += chunk));
      message.once("end", () => resolve(Object.assign(message, { text: received })));
    });
    request.once("error", reject);
  });
  request.write(text.slice(0, 40));
  request.flushHeaders();
  return { request, response, finish: () => request.end(text.slice(40)) };
}

async function start(database: string, graceMs: number): Promise<{ host: Host; base: string }> {
  const host = startHost({ SCIMKIT_ORGS: `acme:${TOKEN}`, DATABASE_URL: database, SCIMKIT_SHUTDOWN_GRACE_MS: String(graceMs) });
  const [, base] = await host.waitFor(/^SCIM base URL for acme: (\S+)$/);
  return { host, base: base as string };
}

describe("the host on SIGTERM", () => {
  it("refuses new connections, finishes the slow request in flight, closes the store and exits 0; the write is there on restart", async () => {
    const database = `sqlite:${join(scratch, "graceful.db")}`;
    const { host, base } = await start(database, 5_000);
    // A kept-alive idle connection must not hold the stop open.
    expect((await fetch(`${base}/Users`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    const slow = slowCreate(base, "slow@example.com");
    await new Promise((resolve) => setTimeout(resolve, 200));

    const signalled = performance.now();
    host.child.kill("SIGTERM");
    await host.waitFor(/^No longer accepting connections; waiting up to 5000 ms for 1 request\(s\) in flight$/);
    await expect(fetch(`${base}/Users`, { headers: { Authorization: `Bearer ${TOKEN}` } })).rejects.toThrow();

    await new Promise((resolve) => setTimeout(resolve, 300));
    slow.finish();
    const response = await slow.response;
    expect(response.statusCode).toBe(201);
    // RFC 9112 §9.6: the client is told this connection ends with the response.
    expect(response.headers.connection).toBe("close");
    const [code] = await once(host.child, "exit");
    const stoppedMs = performance.now() - signalled;
    expect(code).toBe(0);
    expect(host.lines).toContain("Requests finished during shutdown: 1; cut at the end of the grace period: 0");
    expect(host.lines).toContain("Store closed");
    expect(stoppedMs).toBeLessThan(5_000);

    const again = await start(database, 5_000);
    const found = await fetch(`${again.base}/Users?filter=${encodeURIComponent('userName eq "slow@example.com"')}`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(((await found.json()) as { totalResults: number }).totalResults).toBe(1);
    again.host.child.kill("SIGTERM");
    expect((await once(again.host.child, "exit"))[0]).toBe(0);
    console.log(
      `[faults] SIGTERM with a slow request in flight: it finished (201, Connection: close), new connections refused, exit 0 after ${stoppedMs.toFixed(0)} ms`,
    );
  }, 30_000);

  it("cuts a request that outlasts the grace period, then still closes the store and exits 0", async () => {
    const { host, base } = await start(`sqlite:${join(scratch, "cut.db")}`, 500);
    const stuck = slowCreate(base, "stuck@example.com");
    const outcome = stuck.response.then(
      () => "answered",
      () => "cut",
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = performance.now();
    host.child.kill("SIGTERM");
    const [code] = await once(host.child, "exit");
    const stoppedMs = performance.now() - signalled;
    expect(code).toBe(0);
    expect(await outcome).toBe("cut");
    expect(host.lines).toContain("Requests finished during shutdown: 0; cut at the end of the grace period: 1");
    expect(host.lines).toContain("Store closed");
    expect(stoppedMs).toBeGreaterThanOrEqual(450);
    expect(stoppedMs).toBeLessThan(3_000);
    console.log(
      `[faults] SIGTERM with a request that never finishes, grace 500 ms: cut, store closed, exit 0 after ${stoppedMs.toFixed(0)} ms`,
    );
  }, 30_000);
});
