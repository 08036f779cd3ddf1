/**
 * A process of its own for the closing tests (`node --expose-gc sqlite-store-exit.fixture.js
 * <file> close|leave-open|forget`, its compiled twin: test/compiled-sources.global-setup.ts): opens a SQLite store in worker
 * threads, writes a user and reads it back, then closes the store, leaves it open, or drops it
 * and collects garbage; prints what it did as JSON, with whether the write-ahead log is still
 * there. The process must then end by itself: the test fails on its timeout otherwise.
 */
import { existsSync } from "node:fs";
import { sqlStore } from "../sql-store.js";

const [file = "", mode = "close"] = process.argv.slice(2);

async function writeAndRead(): Promise<string | undefined> {
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
  return read?.id;
}

const read = await writeAndRead();
if (mode === "forget") {
  const gc = (globalThis as { readonly gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with --expose-gc");
  // Collection and the finalizer's close take a few turns of the loop.
  for (let turn = 0; turn < 20 && existsSync(`${file}-wal`); turn++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
process.stdout.write(JSON.stringify({ read, wal: existsSync(`${file}-wal`) }));
