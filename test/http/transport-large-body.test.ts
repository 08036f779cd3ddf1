/**
 * A body over the limit on a real server (127.0.0.1), on Express 4 and 5: the client gets a SCIM
 * 413 it can act on, not a broken connection (issue 27, point 5). The router answers from the
 * headers and then reads and discards the body up to a bound, so an upload still in flight ends
 * normally; past the bound the connection is closed. With `Expect: 100-continue` the body is
 * refused before it is sent.
 */
import { execFile } from "node:child_process";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DISCARD_BYTES_FLOOR } from "../../src/http/body-parsing/discard-request-body.js";
import { scimErrorHandler } from "../../src/http/error-rendering/error-handler.js";
import { USER_SCHEMA, createTestApp, type TestApp } from "./harness.js";
import { type LoopbackServer, listenOnLoopback } from "./loopback-server.js";

const SIX_MB = 6 * 1000 * 1000;

/**
 * Node's `fetch` POSTs a body of `bytes` to `url` `times` times, one after the other, from a
 * process of its own — as an identity provider's client is: in the server's own process the
 * two sides share one event loop, and the reset this guards against rarely shows. Each outcome
 * is `status content-type errorStatus limit` (the last when the detail names the limit), or
 * `network error CODE`.
 */
function fetchInAnotherProcess(url: string, token: string, bytes: number, times: number): Promise<string[]> {
  const script = `
    const [url, token, bytes, times] = process.argv.slice(1);
    const body = JSON.stringify({ schemas: ["${USER_SCHEMA}"], userName: "large", displayName: "x".repeat(Number(bytes)) });
    const outcomes = [];
    for (let round = 0; round < Number(times); round += 1) {
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { Authorization: "Bearer " + token, "Content-Type": "application/scim+json" },
          body,
        });
        const answer = await response.json();
        const type = (response.headers.get("content-type") ?? "").split(";")[0];
        outcomes.push([response.status, type, answer.status, /limit/.test(answer.detail) ? "limit" : answer.detail].join(" "));
      } catch (error) {
        outcomes.push("network error " + (error.cause?.code ?? String(error)));
      }
    }
    console.log(JSON.stringify(outcomes));
  `;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--input-type=module", "-e", script, url, token, String(bytes), String(times)],
      { maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as string[])),
    );
  });
}

describe("a body over the limit, sent whole by Node's fetch to a real server", () => {
  let server: LoopbackServer;
  let origin: string;
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    t.app.use("/scim", scimErrorHandler());
    server = await listenOnLoopback(t.app);
    origin = server.origin;
  });
  afterAll(() => server.close());

  it("a 6 MB POST /Users is answered 413 with the SCIM error 20 times out of 20, never a network error", async () => {
    const outcomes = await fetchInAnotherProcess(`${origin}${t.base()}/Users`, t.token.acme, SIX_MB, 20);
    expect(outcomes).toEqual(Array.from({ length: 20 }, () => "413 application/scim+json 413 limit"));
  }, 120_000);

  it("a 6 MB POST /Bulk is answered 413 10 times out of 10", async () => {
    const outcomes = await fetchInAnotherProcess(`${origin}${t.base()}/Bulk`, t.token.acme, SIX_MB, 10);
    expect(outcomes).toEqual(Array.from({ length: 10 }, () => "413 application/scim+json 413 limit"));
  }, 120_000);
});

/** Raw HTTP/1.1 on one connection: what the server wrote, and whether it closed the connection. */
interface RawOutcome {
  readonly text: string;
  readonly closedByServer: boolean;
  readonly bytesSent: number;
}

/**
 * Writes `head`, then `bodyBytes` of body in 64 KiB pieces, as fast as the server reads them,
 * until all are written or the server closes the connection; then waits for the server to close
 * it — or, with `untilAllSent`, settles once the last byte is on its way.
 */
function rawUpload(port: number, head: string, bodyBytes: number, untilAllSent = false): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const piece = Buffer.alloc(64 * 1024, "x");
    let text = "";
    let bytesSent = 0;
    let done = false;
    const finish = (closedByServer: boolean): void => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ text, closedByServer, bytesSent });
    };
    const pump = (): void => {
      while (!done && !socket.destroyed && bytesSent < bodyBytes) {
        const size = Math.min(piece.length, bodyBytes - bytesSent);
        bytesSent += size;
        if (!socket.write(size === piece.length ? piece : piece.subarray(0, size))) {
          socket.once("drain", pump);
          return;
        }
      }
      // Every byte taken by the server: it read the whole body, and closed nothing.
      if (untilAllSent && !done && !socket.destroyed) socket.write(Buffer.alloc(0), () => finish(false));
    };
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
    });
    socket.on("end", () => finish(true));
    socket.on("close", () => finish(true));
    // A reset while writing is the server closing too.
    socket.on("error", () => finish(true));
    socket.write(head);
    pump();
  });
}

/**
 * Sends `first` and then a GET on one connection, and resolves with the status of each answer:
 * whether the connection still carried a request after the first was refused.
 */
function twoRequests(port: number, first: string, t: TestApp): Promise<(string | undefined)[]> {
  const next = `GET ${t.base()}/Users?count=0 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${t.token.acme}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    const statuses = (): (string | undefined)[] => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => match[1]);
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      if (statuses().filter((status) => !status?.startsWith("1")).length === 2 && text.endsWith("}")) socket.destroy();
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(statuses()));
    socket.write(first + next);
  });
}

describe("the bound on what is read of a refused body", () => {
  let server: LoopbackServer;
  let port: number;
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ bodyLimit: "1kb" });
    server = await listenOnLoopback(t.app);
    port = server.port;
  });
  afterAll(() => server.close());

  const chunkedHead = (): string =>
    [
      `POST ${t.base()}/Users HTTP/1.1`,
      "Host: localhost",
      `Authorization: Bearer ${t.token.acme}`,
      "Content-Type: application/scim+json",
      "Transfer-Encoding: chunked",
      "",
      "",
    ].join("\r\n");

  const head = (length: number, extra: readonly string[] = []): string =>
    [
      `POST ${t.base()}/Users HTTP/1.1`,
      "Host: localhost",
      `Authorization: Bearer ${t.token.acme}`,
      "Content-Type: application/scim+json",
      `Content-Length: ${length}`,
      ...extra,
      "",
      "",
    ].join("\r\n");

  it("a body over the limit but within the bound is read to its end: 413, and the connection serves the next request", async () => {
    const length = 200_000;
    const statuses = await twoRequests(port, head(length) + "x".repeat(length), t);
    expect(statuses).toEqual(["413", "200"]);
  });

  it("so is a chunked body over the limit: 413 once it has ended, and the connection serves the next request", async () => {
    const chunk = "x".repeat(50_000);
    const piece = `${chunk.length.toString(16)}\r\n${chunk}\r\n`;
    const chunked = `${piece.repeat(4)}0\r\n\r\n`;
    const statuses = await twoRequests(port, chunkedHead() + chunked, t);
    expect(statuses).toEqual(["413", "200"]);
  });

  it("a chunked body past the bound is cut off: the server closes the connection", async () => {
    const socket = connect(port, "127.0.0.1");
    const piece = "x".repeat(64 * 1024);
    const chunk = Buffer.from(`${piece.length.toString(16)}\r\n${piece}\r\n`);
    let sent = 0;
    const closed = await new Promise<boolean>((resolve) => {
      socket.on("close", () => resolve(true));
      socket.on("error", () => resolve(true));
      socket.on("data", () => undefined);
      const pump = (): void => {
        while (!socket.destroyed && sent < DISCARD_BYTES_FLOOR * 4) {
          sent += chunk.length;
          if (!socket.write(chunk)) {
            socket.once("drain", pump);
            return;
          }
        }
        // Every chunk written and the connection still open: the bound did not hold.
        resolve(socket.destroyed);
      };
      socket.write(chunkedHead());
      pump();
    });
    socket.destroy();
    expect(closed).toBe(true);
    expect(sent).toBeLessThan(DISCARD_BYTES_FLOOR * 4);
  });

  it(`a body past the bound (${DISCARD_BYTES_FLOOR} bytes at a small limit) is cut off: the server closes the connection`, async () => {
    const declared = DISCARD_BYTES_FLOOR * 4;
    const outcome = await rawUpload(port, head(declared), declared, true);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.closedByServer).toBe(true);
    // It stopped reading once past the bound, long before the declared length.
    expect(outcome.bytesSent).toBeLessThan(declared);
  });

  it("an unauthenticated POST of a large body: 401, and the server stops reading past the bound", async () => {
    const declared = DISCARD_BYTES_FLOOR * 4;
    const unauthenticated = head(declared).replace(/Authorization: [^\r]+\r\n/, "");
    const outcome = await rawUpload(port, unauthenticated, declared, true);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(outcome.closedByServer).toBe(true);
    expect(outcome.bytesSent).toBeLessThan(declared);
  });

  it("a client that declares a large body and stalls is cut off by the time bound, after its 413", async () => {
    const outcome = await rawUpload(port, head(50_000_000), 10);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.closedByServer).toBe(true);
  }, 30_000);

  it("with Expect: 100-continue the body is refused before it is sent: 413, no 100 Continue, the connection closed", async () => {
    const outcome = await rawUpload(port, head(10_000_000_000, ["Expect: 100-continue"]), 0);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.text).not.toContain("100 Continue");
    expect(outcome.text).toMatch(/\r\nconnection: close\r\n/i);
    expect(outcome.closedByServer).toBe(true);
  });

  it("without deferContinue, whose server sent 100 Continue itself, the body sent after it is read: 413, then the next request", async () => {
    const plain = await listenOnLoopback(t.app, { deferContinue: false });
    try {
      const length = 200_000;
      const statuses = await twoRequests(plain.port, head(length, ["Expect: 100-continue"]) + "x".repeat(length), t);
      expect(statuses).toEqual(["100", "413", "200"]);
    } finally {
      await plain.close();
    }
  });
});
