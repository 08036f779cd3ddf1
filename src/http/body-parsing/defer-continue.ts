/**
 * `100 Continue` only for a body the app will read (RFC 9110 §10.1.1). Node's HTTP server answers
 * `Expect: 100-continue` with `100 Continue` before the app sees the request — unless the server
 * has a `checkContinue` listener — so a client told to go ahead sends its body even when the app
 * then refuses it unread: a 401, or a 413 for a `Content-Length` over the limit. This listener
 * sends `100 Continue` at the app's first read of the body instead, so a request refused on its
 * headers costs neither side the body.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Requests whose client waits for the `100 Continue` that `deferContinue` has not sent yet. */
const waiting = new WeakSet<IncomingMessage>();

/**
 * Whether `request`'s client holds its body back until `100 Continue`, which `deferContinue` has
 * not sent: a final status answered now reaches it before any of the body. False for a request
 * without `Expect: 100-continue`, and for one whose server sent `100 Continue` on its own (no
 * `deferContinue`): that client is sending its body.
 */
export function awaitsContinue(request: IncomingMessage): boolean {
  return waiting.has(request);
}

/** What `deferContinue` hands the request to: an Express app, or any Node request listener. */
export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A `checkContinue` listener for a Node HTTP server that passes the request to `app` and sends
 * `100 Continue` only when something starts reading the body, and never after the response has
 * begun: a final response sent first closes the exchange, and the client does not send the body.
 * Requests without `Expect: 100-continue` do not pass through it.
 *
 * @example
 * const server = http.createServer(app);
 * server.on("checkContinue", deferContinue(app));
 * server.listen(8080);
 */
export function deferContinue(app: RequestListener): RequestListener {
  return (request, response) => {
    const read = request._read.bind(request);
    let asked = false;
    waiting.add(request);
    request._read = (size: number): void => {
      if (!asked) {
        asked = true;
        // Also reached by Node draining an unread body after the response: no 100 then.
        if (!response.headersSent && !response.writableEnded) {
          response.writeContinue();
          waiting.delete(request);
        }
      }
      read(size);
    };
    app(request, response);
  };
}
