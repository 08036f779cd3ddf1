/**
 * What `createAnalyticsRouter` returns: an Express router, plus the handle of the background work
 * it started — the report worker's poll, heartbeats and purge — which a host stops on shutdown.
 */
import type { Router } from "express";
import type { ReportWorker } from "./report-worker.js";

/** The analytics router: mount it like any Express router; `close()` it when the process stops. */
export type AnalyticsRouter = Router & {
  /**
   * Stops the background work: no more polls or purges, running report jobs stop after their
   * current page and give up their claims, so another process (or this one, restarted) takes
   * them over. Resolves when that is done. Call it after the server stopped taking requests
   * and before closing the store. Idempotent.
   */
  close(): Promise<void>;
  /** The report worker (`pollOnce`, `purgeOnce`, `idle` let a test or a host drive it). */
  readonly reportWorker: ReportWorker;
};
