/**
 * An RFC 8935 receiver for the tests: a real node:http server that checks every pushed SET — its
 * signature against the transmitter's JWKS (fetched over HTTP), `typ`, issuer, audience — and keeps
 * what it accepted, each `jti` once (a redelivery is counted, and acknowledged, not kept again).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from "jose";

export interface ReceivedSet {
  readonly jti: string;
  readonly claims: JWTPayload;
  readonly kid: string | undefined;
}

export interface SetReceiver {
  readonly url: string;
  /** Accepted SETs, each jti once, in the order first received. */
  readonly received: ReceivedSet[];
  /** How many times each jti arrived. */
  readonly arrivals: Map<string, number>;
  /** Pushes refused because the receiver was down (503). */
  refusedWhileDown: number;
  /** SETs that failed verification, with the reason. */
  readonly invalid: string[];
  /** While true, answers 503 without reading the SET. */
  down: boolean;
  /** Pushes still to refuse with 400 `invalid_key` (RFC 8935 §2.4), as a receiver with a stale copy of the JWKS does. */
  refuseKeys: number;
  /** When set, the next push is verified and kept, then left unanswered, and this is called. */
  holdNext: (() => void) | undefined;
  /** When set, the push whose SET is the `after`-th kept is left unanswered, and `onHeld` is called. */
  hold: { readonly after: number; readonly onHeld: () => void } | undefined;
  /** Where the transmitter's JWKS is: changeable, as a restarted transmitter listens elsewhere. */
  jwksUrl: string;
  /** Stops listening and drops every connection: pushes then fail to connect, as to a receiver that is down. */
  goOffline(): Promise<void>;
  /** Listens again on the same port. */
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

export async function startSetReceiver(options: {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUrl: string;
}): Promise<SetReceiver> {
  const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  const keySet = (url: string) => {
    let found = keySets.get(url);
    if (!found) {
      found = createRemoteJWKSet(new URL(url));
      keySets.set(url, found);
    }
    return found;
  };
  const held: ServerResponse[] = [];
  const receiver: SetReceiver = {
    url: "",
    received: [],
    arrivals: new Map(),
    refusedWhileDown: 0,
    invalid: [],
    down: false,
    refuseKeys: 0,
    holdNext: undefined,
    hold: undefined,
    jwksUrl: options.jwksUrl,
    goOffline: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    comeBack: async () => {
      const port = Number(new URL(receiver.url).port);
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
    },
    close: async () => {
      for (const response of held) response.destroy();
      if (!server.listening) return;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const reply = (response: ServerResponse, status: number, body?: unknown): void => {
    response.writeHead(status, body === undefined ? {} : { "Content-Type": "application/json" });
    response.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (receiver.down) {
      receiver.refusedWhileDown += 1;
      request.resume();
      reply(response, 503);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const token = Buffer.concat(chunks).toString("utf8");
    if (request.headers["content-type"] !== "application/secevent+jwt") {
      receiver.invalid.push(`content-type ${request.headers["content-type"]}`);
      reply(response, 400, { err: "invalid_request", description: "Content-Type must be application/secevent+jwt" });
      return;
    }
    if (receiver.refuseKeys > 0) {
      receiver.refuseKeys -= 1;
      reply(response, 400, { err: "invalid_key", description: "No key of the issuer's JWKS (as cached here) has this kid." });
      return;
    }
    try {
      // RFC 8417 §2.3 typ; RFC 8935 §2.3: the receiver checks issuer and audience.
      const { payload, protectedHeader } = await jwtVerify(token, keySet(receiver.jwksUrl), {
        issuer: options.issuer,
        audience: options.audience,
        typ: "secevent+jwt",
        algorithms: ["ES256"],
      });
      const jti = payload.jti;
      if (typeof jti !== "string" || typeof payload.iat !== "number" || typeof payload["events"] !== "object") {
        throw new Error("a SET needs jti, iat and events");
      }
      receiver.arrivals.set(jti, (receiver.arrivals.get(jti) ?? 0) + 1);
      if (receiver.arrivals.get(jti) === 1) receiver.received.push({ jti, claims: payload, kid: protectedHeader.kid });
      const planned = receiver.hold;
      const hold = receiver.holdNext ?? (planned && planned.after === receiver.received.length ? planned.onHeld : undefined);
      if (hold) {
        receiver.holdNext = undefined;
        receiver.hold = undefined;
        held.push(response);
        hold();
        return;
      }
      reply(response, 202);
    } catch (error) {
      receiver.invalid.push(error instanceof Error ? error.message : String(error));
      // RFC 8935 §2.4's codes: the claim that failed, else the key or signature.
      const claim = error instanceof errors.JWTClaimValidationFailed ? error.claim : undefined;
      const err = claim === "aud" ? "invalid_audience" : claim === "iss" ? "invalid_issuer" : "invalid_key";
      reply(response, 400, { err, description: error instanceof Error ? error.message : String(error) });
    }
  };
  const server = createServer((request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  (receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  return receiver;
}
