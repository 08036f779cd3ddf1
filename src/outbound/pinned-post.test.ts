import { afterEach, describe, expect, it } from "vitest";
import { answeringServer, type AnsweringServer } from "./answering-server.fixture.js";
import { type OutboundAddressPolicy, OutboundAddressRefusedError, outboundAddressPolicy } from "./outbound-address-policy.js";
import { pinnedPost, type PinnedPostRequest } from "./pinned-post.js";

const servers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of servers.splice(0)) await close();
});

/** A server on 127.0.0.1 answering with `reply`, closed after the test. */
async function serve(reply: Parameters<typeof answeringServer>[0]): Promise<AnsweringServer> {
  const server = await answeringServer(reply);
  servers.push(() => server.close());
  return server;
}

const request = (timeoutMs = 10_000): PinnedPostRequest => ({
  headers: { "Content-Type": "text/plain" },
  body: "hello",
  signal: AbortSignal.timeout(timeoutMs),
  maxResponseBytes: 1024,
});

describe("a POST pinned to the addresses the policy checked", () => {
  it("never follows a redirect: 302, 303 and 307 come back as they are, the target never hears of it", async () => {
    const target = await serve((_, response) => response.end("secret of the target"));
    for (const status of [301, 302, 303, 307, 308]) {
      const redirecting = await serve((_, response) => {
        response.writeHead(status, { Location: `http://127.0.0.1:${target.port}/internal` });
        response.end();
      });
      const post = pinnedPost(outboundAddressPolicy({ allowHosts: ["127.0.0.1"] }));
      const answer = await post(new URL(`http://127.0.0.1:${redirecting.port}/events`), request());
      expect(answer.status).toBe(status);
      expect(redirecting.hits).toEqual(["POST /events"]);
    }
    expect(target.hits).toEqual([]);
  });

  it("refuses a forbidden literal address before connecting, and a forbidden name when the socket looks it up", async () => {
    const server = await serve((_, response) => response.end());
    const post = pinnedPost(outboundAddressPolicy());
    for (const host of ["127.0.0.1", "2130706433", "localhost"]) {
      const error = await post(new URL(`http://${host}:${server.port}/`), request()).catch((caught: unknown) => caught);
      expect(error, host).toBeInstanceOf(OutboundAddressRefusedError);
      expect((error as OutboundAddressRefusedError).rule).toBe("loopback");
    }
    expect(server.hits).toEqual([]);
    // Allowed by the operator, the same name connects, to the addresses the lookup checked.
    const allowed = pinnedPost(outboundAddressPolicy({ allowHosts: ["127.0.0.0/8", "::1"] }));
    expect((await allowed(new URL(`http://localhost:${server.port}/ok`), request())).status).toBe(200);
    expect(server.hits).toEqual(["POST /ok"]);
  });

  it("connects to the addresses the policy's lookup gave, never to a second resolution of the name (DNS rebinding)", async () => {
    const server = await serve((_, response) => response.end());
    const policy = outboundAddressPolicy();
    const looked: string[] = [];
    // `rebind.invalid` resolves nowhere (RFC 6761 §6.4): reaching the server proves the socket used
    // only this lookup's answer, which for the real policy is the addresses it checked.
    const pinned: OutboundAddressPolicy = {
      ...policy,
      lookup: (hostname, options, callback) => {
        looked.push(hostname);
        if (options.all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
        else callback(null, "127.0.0.1", 4);
      },
    };
    expect((await pinnedPost(pinned)(new URL(`http://rebind.invalid:${server.port}/pinned`), request())).status).toBe(200);
    expect(looked).toEqual(["rebind.invalid"]);
    expect(server.hits).toEqual(["POST /pinned"]);
  });

  it("reads at most maxResponseBytes of an answer", async () => {
    const server = await serve((_, response) => response.end("x".repeat(200_000)));
    const post = pinnedPost(outboundAddressPolicy({ allowHosts: ["127.0.0.1"] }));
    const answer = await post(new URL(`http://127.0.0.1:${server.port}/`), request());
    expect(answer).toEqual({ status: 200, body: "x".repeat(1024) });
  });

  it("gives up when the signal aborts, with the signal's reason", async () => {
    const server = await serve(() => {
      // Never answers.
    });
    const post = pinnedPost(outboundAddressPolicy({ allowHosts: ["127.0.0.1"] }));
    await expect(post(new URL(`http://127.0.0.1:${server.port}/`), request(50))).rejects.toMatchObject({ name: "TimeoutError" });
  });
});
