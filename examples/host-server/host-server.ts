/**
 * The example host: an Express app that serves SCIM for a set of organizations on the
 * embedded default store, and the analytics interface over the same data — what `npm start`
 * runs. Build it with `createHostApp`/`startHostServer`, or run `main.ts` to configure it from
 * the environment.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express, type RequestHandler } from "express";
import { createAnalyticsRouter } from "../../src/analytics/create-analytics-router.js";
import type { AnalyticsRouterOptions } from "../../src/analytics/analytics-router-options.js";
import type { AnalyticsStore } from "../../src/analytics/analytics-store.js";
import type { TokenStore } from "../../src/auth/hashed-token-store.js";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import type { ScimEvent } from "../../src/http/scim-event.js";
import type { TokenVerifier } from "../../src/auth/token-verifier.js";
import { specProfile } from "../../src/scim/schema/resource-profile.js";
import type { ResourceStore } from "../../src/store/resource-store.js";

/** The analytics interface of the host (issue 6), mounted at `/analytics/v1`. */
export interface HostAnalytics {
  /** The analytics store over the same storage as `HostServerOptions.store`. */
  readonly store: AnalyticsStore;
  /** Issues the SCIM token of each organization the operator creates. */
  readonly scimTokens: TokenStore;
  /** Delivers admin-user invitations; the default logs them, as this host sends no mail. */
  readonly onInvitation?: AnalyticsRouterOptions["onInvitation"];
}

export interface HostServerOptions {
  readonly store: ResourceStore;
  /** SCIM authentication; wrap it in `activeOrganizationsOnly` so suspension takes effect. */
  readonly auth: TokenVerifier;
  /** The analytics interface; absent: the host serves SCIM only. */
  readonly analytics?: HostAnalytics;
  /** Where log lines go. Default: stdout. */
  readonly log?: (line: string) => void;
  /** Receives lifecycle events; the default logs them. */
  readonly onEvent?: (event: ScimEvent) => void;
}

export interface RunningHost {
  readonly server: Server;
  readonly port: number;
  /** `http://localhost:{port}/scim/Organizations/{orgId}/v2`. */
  baseUrl(orgId: string): string;
  /** `http://localhost:{port}/analytics/v1`. */
  readonly analyticsUrl: string;
  /** Stops accepting connections and waits for open requests to finish. */
  close(): Promise<void>;
}

/** One log line per request: method, path, status and duration, once the response is sent. */
function requestLog(log: (line: string) => void): RequestHandler {
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    response.on("finish", () => {
      const milliseconds = Number(process.hrtime.bigint() - started) / 1e6;
      // originalUrl, since a mounted router rewrites req.url; without the query, which can hold
      // filters with personal data.
      const path = request.originalUrl.split("?")[0] ?? "";
      log(`${request.method} ${path} ${response.statusCode} ${milliseconds.toFixed(1)}ms`);
    });
    next();
  };
}

/**
 * The app: request log, the SCIM router at the spec's path (spec §2.1), the analytics interface
 * at `/analytics/v1` (spec §4.6: its own base address), and a health check.
 */
export function createHostApp(options: HostServerOptions): Express {
  const log = options.log ?? ((line: string) => console.log(line));
  const logError = (error: unknown): void => log(`error ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  const app = express();
  app.disable("x-powered-by");
  app.use(requestLog(log));
  app.get("/healthz", (_request, response) => {
    response.json({ status: "ok" });
  });
  app.use(
    "/scim/Organizations/:orgId/v2",
    createScimRouter({
      store: options.store,
      auth: options.auth,
      profile: specProfile,
      onEvent: options.onEvent ?? ((event) => log(`event ${event.type} ${event.orgId} ${event.id}`)),
      onError: logError,
    }),
  );
  if (options.analytics) {
    const { store, scimTokens } = options.analytics;
    app.use(
      "/analytics/v1",
      createAnalyticsRouter({
        store,
        scimTokens,
        onInvitation:
          options.analytics.onInvitation ??
          (({ adminUser, code, expiresAt }) => log(`invitation for ${adminUser.email}: code ${code} (accept with POST /analytics/v1/invitations/accept before ${expiresAt})`)),
        onError: logError,
      }),
    );
  }
  return app;
}

/** Starts the host on `port` (0 picks a free one). */
export async function startHostServer(options: HostServerOptions & { readonly port: number }): Promise<RunningHost> {
  const app = createHostApp(options);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(options.port, () => resolve(listening));
    listening.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    baseUrl: (orgId) => `http://localhost:${port}/scim/Organizations/${encodeURIComponent(orgId)}/v2`,
    analyticsUrl: `http://localhost:${port}/analytics/v1`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Idle keep-alive connections would otherwise hold close() open until they time out.
        server.closeIdleConnections();
      }),
  };
}
