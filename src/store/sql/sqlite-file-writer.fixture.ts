/**
 * Another process for the SQLite file tests (`node sqlite-file-writer.fixture.js '<task JSON>'`,
 * its compiled twin: test/compiled-sources.global-setup.ts): opens the store on the file it is given, adds each id to the group in its own
 * concurrent update, and prints what was added as JSON.
 */
import { sqlStore } from "./sql-store.js";

/** What the test hands the worker. */
export interface WriterTask {
  readonly path: string;
  readonly orgId: string;
  readonly groupId: string;
  readonly ids: readonly string[];
}

const task = JSON.parse(process.argv[2] ?? "{}") as WriterTask;
const store = await sqlStore({ sqlite: task.path });
try {
  const results = await Promise.all(
    task.ids.map((id) =>
      store.update({
        orgId: task.orgId,
        resourceType: "Group",
        id: task.groupId,
        now: new Date().toISOString(),
        membership: { kind: "delta", add: [id], remove: [] },
        unknownMembers: "ignore",
        members: false,
      }),
    ),
  );
  process.stdout.write(JSON.stringify(results.map((result) => result?.membership?.added ?? [])));
} finally {
  await store.close();
}
