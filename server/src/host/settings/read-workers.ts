import { availableParallelism } from "node:os";
import { fail, raw, type SettingReader } from "./setting-reader.js";

/**
 * `SCIMKIT_WORKERS`: how many processes serve. Several only on PostgreSQL, which they share (its
 * default there: one per core); one elsewhere.
 */
export function readWorkers(reader: SettingReader, databaseUrl: string | undefined): number {
  const onPostgres = databaseUrl !== undefined && /^(postgres|postgresql):\/\//.test(databaseUrl);
  const cores = availableParallelism();
  const workersText = raw(reader, "SCIMKIT_WORKERS");
  const workers = onPostgres ? cores : 1;
  if (workersText === undefined) return workers;
  const count = workersText.toLowerCase() === "auto" ? cores : /^\d+$/.test(workersText) ? Number(workersText) : Number.NaN;
  if (!(count >= 1 && count <= 256)) {
    fail(reader, "SCIMKIT_WORKERS", workersText, `"auto" (this machine's ${cores} cores) or a whole number from 1 to 256`);
    return workers;
  }
  if (count > 1 && !onPostgres) {
    // SQLite has one writer per file, and memory: each process would hold a store of its own.
    reader.errors.push(
      `SCIMKIT_WORKERS=${workersText}: several workers need DATABASE_URL=postgres://…, which they share; SQLite and memory: serve from one process (1)`,
    );
    return workers;
  }
  return count;
}
