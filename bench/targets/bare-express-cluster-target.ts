/**
 * The baseline's route (`bare-express-target.ts`: Express, `GET /bare`, a small fixed JSON body)
 * served by `BARE_WORKERS` cluster workers behind one port, the way `SCIMKIT_WORKERS` serves the
 * host: what clustering can gain at best on this machine, with no database in the way. The
 * primary prints the ready line once every worker listens (bench/target-protocol.md).
 */
import cluster from "node:cluster";
import express from "express";
import { onShutdown, printReady } from "../lib/target-support.js";

const port = Number(process.env["PORT"] ?? 0);
const workers = Number(process.env["BARE_WORKERS"] ?? 1);

if (cluster.isPrimary) {
  let listening = 0;
  for (let index = 0; index < workers; index += 1) {
    cluster.fork().on("listening", () => {
      listening += 1;
      if (listening === workers)
        printReady({ port, scimBase: "", token: "", description: `bare Express 5 GET /bare, ${workers} cluster workers` });
    });
  }
  onShutdown(async () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (Object.values(cluster.workers ?? {}).every((worker) => worker === undefined)) resolve();
      };
      cluster.on("exit", check);
      check();
    });
  });
} else {
  const app = express();
  app.disable("x-powered-by");
  app.get("/bare", (_request, response) => {
    response.json({ id: "2819c223-7f76-453a-919d-413861904646", userName: "bjensen@example.com", active: true });
  });
  const server = app.listen(port, "127.0.0.1");
  server.keepAliveTimeout = 60_000;
  onShutdown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}
