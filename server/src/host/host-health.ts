/**
 * The probes an orchestrator asks: `GET /healthz` (liveness: the process answers; restart it when
 * it does not) and `GET /readyz` (readiness: it can serve — its database answers and it is not
 * shutting down; send it no traffic while it is not). Neither needs a token nor shows org data.
 */
import type { RequestHandler } from "express";

/** Whether the host can serve, as `/readyz` reports it. */
export interface HostHealth {
  /** Resolves when the store answers a trivial query; rejects (or outlasts the timeout) when not. */
  check(): Promise<void>;
  /** True from the moment a shutdown begins: a draining host must get no new traffic. */
  draining(): boolean;
}

/** A `HostHealth` over `ping`, whose `drain()` the shutdown calls. */
export interface DrainableHealth extends HostHealth {
  drain(): void;
}

/** How long `/readyz` waits for the store before it says the database does not answer. */
export const READY_TIMEOUT_MS = 2000;

/** Readiness over a store round trip (`ping`), bounded by `timeoutMs`. */
export function hostHealth(ping: () => Promise<void>, timeoutMs: number = READY_TIMEOUT_MS): DrainableHealth {
  let draining = false;
  return {
    draining: () => draining,
    drain: () => {
      draining = true;
    },
    check: () =>
      new Promise<void>((resolve, reject) => {
        // A pool waiting on an unreachable PostgreSQL may take its connection timeout to fail; a
        // probe must answer well within the orchestrator's own timeout.
        const timer = setTimeout(() => reject(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
        ping().then(
          () => {
            clearTimeout(timer);
            resolve();
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error);
          },
        );
      }),
  };
}

/** `/healthz` or `/readyz` (any case, one trailing slash allowed, as Express routes match), else undefined. */
function probeOf(path: string): "healthz" | "readyz" | undefined {
  const bare = (path.endsWith("/") ? path.slice(0, -1) : path).toLowerCase();
  return bare === "/healthz" ? "healthz" : bare === "/readyz" ? "readyz" : undefined;
}

/**
 * `GET /healthz` and `GET /readyz` (and HEAD); every other request goes on. One plain middleware,
 * not a router of two routes, since every request of the host passes it. Without `health`, `/readyz`
 * answers as `/healthz` does.
 */
export function healthProbes(health: HostHealth | undefined, logError: (error: unknown) => void = () => {}): RequestHandler {
  return (request, response, next) => {
    const probe = request.method === "GET" || request.method === "HEAD" ? probeOf(request.path) : undefined;
    if (probe === undefined) {
      next();
      return;
    }
    response.set("Cache-Control", "no-store");
    if (probe === "healthz" || health === undefined) {
      response.json({ status: "ok" });
      return;
    }
    if (health.draining()) {
      response.status(503).json({ status: "unavailable", reason: "shutting down" });
      return;
    }
    health.check().then(
      () => response.json({ status: "ok" }),
      (error: unknown) => {
        // The cause goes to the log, not to an unauthenticated client: it may name the database's address.
        logError(new Error("readiness check failed: the database does not answer", { cause: error }));
        response.status(503).json({ status: "unavailable", reason: "database unreachable" });
      },
    );
  };
}
