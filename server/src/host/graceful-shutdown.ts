/**
 * Stopping an HTTP server the way a deployment expects on SIGTERM: no new connections, the
 * requests in flight given a grace period to finish, then whatever is left cut, so a stop never
 * waits on a slow client longer than the orchestrator allows.
 */
import type { Server, ServerResponse } from "node:http";

/** How a shutdown went. */
export interface ShutdownOutcome {
  /** Requests that were in flight when it began (or arrived on open connections after) and finished. */
  readonly finished: number;
  /** Requests still unanswered when the grace period ran out, whose connections were closed. */
  readonly cut: number;
}

/** The shutdown of one server, armed when the server starts. */
export interface GracefulShutdown {
  /** Requests being answered now. */
  inFlight(): number;
  /**
   * Stops accepting connections, lets the requests in flight finish for up to `graceMs`, then
   * closes every connection left; resolves once the server is closed. Calling it again returns
   * the same promise.
   */
  shutdown(graceMs: number): Promise<ShutdownOutcome>;
}

/**
 * Tracks the requests `server` answers, so a shutdown knows what it waits for.
 *
 * @example const stopper = gracefulShutdown(server); process.on("SIGTERM", () => stopper.shutdown(10_000).then(…));
 */
export function gracefulShutdown(server: Server): GracefulShutdown {
  const pending = new Set<ServerResponse>();
  let closing: Promise<ShutdownOutcome> | undefined;
  let finished = 0;

  // HTTP/1.1 §9.6 (RFC 9112): `Connection: close` tells the client not to send another request on
  // this connection. Node keeps answering on a kept-alive connection after server.close() until its
  // keep-alive timeout, so without it a busy client would hold the stop open and race the close.
  const closeAfter = (response: ServerResponse): void => {
    if (!response.headersSent) response.setHeader("Connection", "close");
  };

  server.on("request", (_request, response: ServerResponse) => {
    pending.add(response);
    if (closing !== undefined) closeAfter(response);
    response.once("close", () => {
      pending.delete(response);
      if (closing !== undefined && response.writableFinished) finished += 1;
    });
  });

  return {
    inFlight: () => pending.size,
    shutdown(graceMs) {
      closing ??= new Promise<ShutdownOutcome>((resolve, reject) => {
        for (const response of pending) closeAfter(response);
        let cut = 0;
        const deadline = setTimeout(() => {
          cut = pending.size;
          server.closeAllConnections();
        }, graceMs);
        server.close((error) => {
          clearTimeout(deadline);
          if (error) reject(error);
          else resolve({ finished, cut });
        });
        // Connections with no request in flight would otherwise stay open until their keep-alive timeout.
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
