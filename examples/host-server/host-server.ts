/**
 * The example host: an Express app that serves SCIM for a set of organizations on the
 * embedded default store — what `npm start` runs. Build it with `createHostServer`, or run
 * `main.ts` to configure it from the environment.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express, type RequestHandler } from "express";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import type { ScimEvent } from "../../src/http/scim-event.js";
import type { TokenVerifier } from "../../src/auth/token-verifier.js";
import { specProfile } from "../../src/scim/schema/resource-profile.js";
import type { ResourceStore } from "../../src/store/resource-store.js";

export interface HostServerOptions {
  readonly store: ResourceStore;
  readonly auth: TokenVerifier;
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

/** The app: request log, the SCIM router at the spec's path (spec §2.1), and a health check. */
export function createHostApp(options: HostServerOptions): Express {
  const log = options.log ?? ((line: string) => console.log(line));
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
      onError: (error) => log(`error ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    }),
  );
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
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Idle keep-alive connections would otherwise hold close() open until they time out.
        server.closeIdleConnections();
      }),
  };
}
