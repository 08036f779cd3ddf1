/**
 * One-off timing of issue 12 point 3 (not a test, not part of `npm run bench`): a group of 100,000
 * members read over a real socket on the memory store, with the longest event-loop stall seen
 * while it ran; then the mean latency of a `GET /Users/{id}` over a kept-alive connection, to show
 * the read path of small resources did not get slower.
 *
 *   npx tsx bench/one-off/big-group-event-loop.ts [members] [userGets]
 */
import express from "express";
import { Agent, request } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { createTokenStore } from "../../src/auth/hashed-token-store.js";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";

const [membersArg = "100000", getsArg = "3000"] = process.argv.slice(2);
const store = memoryStore();
const tokens = createTokenStore();
const acme = (await tokens.issue("acme", { label: "timing" })).token;
const app = express();
app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: tokens }));
const server = app.listen(0, "127.0.0.1");
await new Promise((resolve) => server.once("listening", resolve));
const { port } = server.address() as AddressInfo;
const base = "/scim/Organizations/acme/v2";
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

// Seeded through the store: the HTTP path to 100,000 users is not what is timed.
const now = new Date().toISOString();
const ids: string[] = [];
for (let index = 0; index < Number(membersArg); index++) {
  const id = `u-${index}`;
  ids.push(id);
  await store.create({
    orgId: "acme",
    resourceType: "User",
    id,
    now,
    attributes: { userName: `user${index}` },
    uniqueKeys: [],
    unknownMembers: "ignore",
  });
}
await store.create({
  orgId: "acme",
  resourceType: "Group",
  id: "big",
  now,
  attributes: { displayName: "big" },
  uniqueKeys: [],
  members: ids,
  unknownMembers: "ignore",
});

/** GETs `path`, discarding the body (the client's own parsing would count as the server's stall). */
function get(path: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { port, host: "127.0.0.1", path: `${base}${path}`, agent, headers: { authorization: `Bearer ${acme}` } },
      (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => (bytes += chunk.length));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

for (const path of ["/Groups/big", "/Groups/big?attributes=members.value", "/Groups?attributes=displayName,members"]) {
  await get(path);
  for (let run = 0; run < 3; run++) {
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    const started = performance.now();
    const { status, bytes } = await get(path);
    const elapsed = performance.now() - started;
    histogram.disable();
    console.log(
      `${path}: ${status}, ${(bytes / 1e6).toFixed(1)} MB in ${elapsed.toFixed(0)} ms; event-loop delay max ${(histogram.max / 1e6).toFixed(1)} ms, p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms`,
    );
  }
}

for (let round = 0; round < 3; round++) {
  const started = performance.now();
  for (let index = 0; index < Number(getsArg); index++) await get(`/Users/u-${index}`);
  console.log(
    `GET /Users/{id}: ${(((performance.now() - started) / Number(getsArg)) * 1000).toFixed(0)} µs each (${getsArg} sequential, kept alive)`,
  );
}
agent.destroy();
server.close();
