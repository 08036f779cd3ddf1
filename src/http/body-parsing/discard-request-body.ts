/**
 * What is read of a request body the router refuses for its size (issue 27). Closing the
 * connection while the client is still sending makes its upload fail with a reset (EPIPE or
 * ECONNRESET) before it reads the 413 — a network error an identity provider retries, where a 413
 * is permanent. So the body is read and thrown away, as RFC 9110 §15.5.14 and RFC 9112 §9.6 allow
 * ("continue reading the request content"), but only up to a bound, past which the connection is
 * closed: a refused request is not a free bandwidth sink.
 */
import type { IncomingMessage } from "node:http";
import type { RequestHandler } from "express";

/** RFC 9112 §6.3: a request has a body when it declares a length above zero or a transfer coding. */
export function hasBody(headers: { readonly [name: string]: unknown }): boolean {
  return headers["transfer-encoding"] !== undefined || (headers["content-length"] !== undefined && headers["content-length"] !== "0");
}

/** Requests whose body is already counted against a bound. */
const bounded = new WeakSet<IncomingMessage>();

/** The fewest bytes of a refused body read and discarded, whatever the limit: a 6 MB body at a 1 MiB limit fits. */
export const DISCARD_BYTES_FLOOR = 16 * 1024 * 1024;

/** How long a refused body may take to arrive, from the moment it is refused, before the connection is closed. */
export const DISCARD_MS = 5_000;

/** The most bytes of a body refused at `limit` that are read: four times the limit, and at least `DISCARD_BYTES_FLOOR`. */
export function discardBound(limit: number): number {
  return Math.max(DISCARD_BYTES_FLOOR, 4 * limit);
}

/**
 * Counts the bytes of `request`'s body as they are read, and closes the connection once more than
 * `maxBytes` have arrived or once the timer runs out: started at once with `timeFrom` 0, else when
 * more than `timeFrom` bytes have arrived.
 */
function closeBeyond(request: IncomingMessage, maxBytes: number, timeFrom: number): void {
  bounded.add(request);
  let received = 0;
  let timer: NodeJS.Timeout | undefined;
  const startTimer = (): void => {
    timer = setTimeout(cutOff, DISCARD_MS).unref();
  };
  const count = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > maxBytes) cutOff();
    else if (received > timeFrom && timer === undefined) startTimer();
  };
  const stop = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    request.off("data", count);
    request.off("end", stop);
    request.off("close", stop);
  };
  function cutOff(): void {
    stop();
    request.socket.destroy();
  }
  request.on("data", count);
  request.once("end", stop);
  request.once("close", stop);
  if (timeFrom === 0) startTimer();
}

/**
 * Bounds the reading of a body of unknown length (chunked), which Express's parser, once past
 * `limit`, reads to its end before it says 413: the connection is closed once more than
 * `discardBound(limit)` bytes have arrived, or `DISCARD_MS` after more than `limit` have. Call it
 * before the body is read; it reads nothing itself.
 */
export function boundRequestBody(request: IncomingMessage, limit: number): void {
  closeBeyond(request, discardBound(limit), Math.max(1, limit));
}

/**
 * Reads and discards `request`'s body, refused unread for being over `limit`, up to
 * `discardBound(limit)` bytes and for `DISCARD_MS` from now; then closes the connection. A body
 * that ends within the bounds leaves the connection open for the client's next request.
 */
export function discardRequestBody(request: IncomingMessage, limit: number): void {
  closeBeyond(request, discardBound(limit), 0);
  // Nothing else reads it: without this a listener for `data` alone keeps a paused stream paused.
  request.resume();
}

/** Responses `boundUnreadBody` already listens to. */
const watched = new WeakSet<object>();

/**
 * Bounds the body of any request answered without reading it (a 401, a 404, a 429): Node reads
 * such a body to its end to keep the connection, however long it is and however slowly it comes.
 * Once the response has finished, at most `DISCARD_BYTES_FLOOR` more bytes are read, for at most
 * `DISCARD_MS`; then the connection is closed. Mount it first.
 */
export function boundUnreadBody(): RequestHandler {
  return (request, response, next) => {
    // Mounted by an app and again by the router inside it (the host does): one listener is enough.
    // Most requests (GET, DELETE) have no body to bound: no listener for them.
    if (!hasBody(request.headers) || watched.has(response)) {
      next();
      return;
    }
    watched.add(response);
    // Before Node's own listener, which would discard the body unseen (and unbounded).
    response.prependOnceListener("finish", () => {
      // `readableFlowing` null: nothing has read, or begun to read, the body.
      if (!request.complete && request.readableFlowing === null && !bounded.has(request)) {
        closeBeyond(request, DISCARD_BYTES_FLOOR, 0);
        request.resume();
      }
    });
    next();
  };
}
