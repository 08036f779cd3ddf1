/**
 * An HTTP(S) POST that goes only where an `OutboundAddressPolicy` lets it: a literal address is
 * checked before connecting, a name is resolved by the policy's `lookup`, which the socket connects
 * with, so the address checked is the address connected to. Built on `node:http`/`node:https`
 * rather than the global `fetch`: Node's `fetch` takes no `lookup`, and the dispatcher that would
 * is the undici package, a dependency for one option. It never follows a redirect (`node:http`
 * does not), and it reads at most `maxResponseBytes` of an answer.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { OutboundAddressPolicy } from "./outbound-address-policy.js";

/** One POST. */
export interface PinnedPostRequest {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Aborts the request and the reading of its answer; the rejection is the signal's reason. */
  readonly signal: AbortSignal;
  /** Most bytes of the answer's body kept; the rest is not read. */
  readonly maxResponseBytes: number;
}

/** The answer: its status and up to `maxResponseBytes` of its body, as UTF-8. */
export interface PinnedPostResponse {
  readonly status: number;
  readonly body: string;
}

/** POSTs to `url`; rejects with the policy's `OutboundAddressRefusedError`, the signal's reason, or the socket's error. */
export type PinnedPost = (url: URL, request: PinnedPostRequest) => Promise<PinnedPostResponse>;

/**
 * A POST under `policy`, with connections kept alive per protocol (idle ones do not hold the
 * process open). Its agents are its own: a socket opened under one policy is never reused under another.
 *
 * @example
 * const post = pinnedPost(outboundAddressPolicy());
 * const { status } = await post(new URL("https://receiver.example.com/events"), { headers, body, signal, maxResponseBytes: 8192 });
 */
export function pinnedPost(policy: OutboundAddressPolicy): PinnedPost {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return (url, { headers, body, signal, maxResponseBytes }) =>
    new Promise<PinnedPostResponse>((resolve, reject) => {
      policy.checkLiteral(url.hostname);
      signal.throwIfAborted();
      const secure = url.protocol === "https:";
      const request = (secure ? httpsRequest : httpRequest)(url, {
        method: "POST",
        agent: secure ? agents.https : agents.http,
        lookup: policy.lookup,
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
      });
      const settle = (outcome: () => void): void => {
        signal.removeEventListener("abort", abort);
        outcome();
      };
      const abort = (): void => {
        const reason = signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
        request.destroy(reason);
        // Rejected here too: once the answer has begun, the request may not report its end.
        settle(() => reject(reason));
      };
      signal.addEventListener("abort", abort, { once: true });
      request.on("error", (error) => settle(() => reject(error)));
      request.on("response", (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const finish = (): void =>
          settle(() => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk.subarray(0, maxResponseBytes - kept));
          kept += Math.min(chunk.length, maxResponseBytes - kept);
          if (kept >= maxResponseBytes) {
            // Enough to know what the receiver said: the rest is not read, and the socket not reused.
            response.destroy();
            finish();
          }
        });
        response.on("end", finish);
        response.on("error", (error) => settle(() => reject(error)));
      });
      request.end(body);
    });
}
