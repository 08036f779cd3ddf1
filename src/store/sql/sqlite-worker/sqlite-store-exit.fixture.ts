/**
 * A process of its own for the closing tests (`node --import tsx sqlite-store-exit.fixture.ts
 * <file> close|leave-open`): opens a SQLite store in worker threads, writes a user and reads it
 * back, closes the store or leaves it open, and prints what it did as JSON. The process must then
 * end by itself: the test fails on its timeout otherwise.
 */
import { sqlStore } from "../sql-store.js";

const [file = "", mode = "close"] = process.argv.slice(2);
const store = await sqlStore({ sqlite: file });
await store.create({
  orgId: "acme",
  resourceType: "User",
  id: "ann",
  now: new Date().toISOString(),
  attributes: { userName: "ann" },
  uniqueKeys: [{ attribute: "userName", value: "ann" }],
  unknownMembers: "ignore",
});
const read = await store.get({ orgId: "acme", resourceType: "User", id: "ann", members: false });
if (mode === "close") await store.close();
process.stdout.write(JSON.stringify({ read: read?.id, closed: mode === "close" }));
