/**
 * Mounting the example store: it is a `ResourceStore` like any other, so the router takes it as
 * it takes `memoryStore()`. Run it with `npx tsx --conditions=scimkit-source examples/custom-store/serve.ts` (`PORT`, default
 * 8080); it prints a bearer token for the `demo` organization.
 */
import express from "express";
import { createScimRouter, createTokenStore } from "scimkit";
import { memoryBackend } from "./key-value-backend.js";
import { keyValueStore } from "./key-value-store.js";

// Swap memoryBackend() for your own KeyValueBackend over Redis, DynamoDB, LevelDB…
const store = keyValueStore(memoryBackend());
const tokens = createTokenStore();
const { token } = await tokens.issue("demo", { label: "custom-store example" });

const app = express();
app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: tokens }));

const port = Number(process.env["PORT"] ?? 8080);
app.listen(port, () => {
  console.log(`SCIM base URL: http://localhost:${port}/scim/Organizations/demo/v2`);
  console.log(`Bearer token for demo (shown once): ${token}`);
});
