/**
 * The baseline (bench/target-protocol.md): Express with one route that returns a small fixed
 * JSON body — what every other figure is divided by.
 */
import express from "express";
import { createMetricsProbe, wantsCollection, onShutdown, printReady } from "../lib/target-support.js";

const probe = createMetricsProbe();
const app = express();
app.disable("x-powered-by");
app.get("/bare", (_request, response) => {
  response.json({ id: "2819c223-7f76-453a-919d-413861904646", userName: "bjensen@example.com", active: true });
});
app.get("/__bench/metrics", (request, response) => {
  response.json(probe.read(wantsCollection(request.query)));
});
const server = app.listen(Number(process.env["PORT"] ?? 0), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  printReady({ port, scimBase: "", token: "", description: "bare Express 5 GET /bare" });
});
server.keepAliveTimeout = 60_000;
onShutdown(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
