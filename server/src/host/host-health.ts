/**
 * The probes an orchestrator asks: `GET /healthz` (liveness: the process answers; restart it when
 * it does not) and `GET /readyz` (readiness: it can serve — its database answers and it is not
 * shutting down; send it no traffic while it is not). Neither needs a token nor shows org data.
 */
import express, { type Router } from "express";

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

/** `/healthz` and `/readyz`; without `health`, `/readyz` answers as `/healthz` does. */
export function healthRoutes(health: HostHealth | undefined, logError: (error: unknown) => void = () => {}): Router {
  const router = express.Router();
  router.get("/healthz", (_request, response) => {
    response.set("Cache-Control", "no-store").json({ status: "ok" });
  });
  router.get("/readyz", (_request, response) => {
    response.set("Cache-Control", "no-store");
    if (health === undefined) {
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
  });
  return router;
}
