/**
 * A transaction opened with a statement of the dialect's choosing on one connection, for
 * databases whose `BEGIN` needs a mode Kysely's transaction builder does not offer (SQLite's
 * `BEGIN IMMEDIATE`, which takes the write lock up front so two writers never deadlock upgrading
 * a read lock).
 */
import { sql, type Kysely, type RawBuilder } from "kysely";
import { runDeferrable } from "../deferred-statement.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { TransactionWork } from "./sql-dialect.js";

/**
 * Runs `work` between `begin` and `COMMIT` on one connection of `db`; on failure rolls back and
 * rethrows the original error.
 *
 * @example connectionTransaction(db, sql`begin immediate`, async (trx) => { … })
 */
export async function connectionTransaction<T>(
  db: Kysely<SqlStoreDatabase>,
  begin: RawBuilder<unknown>,
  work: TransactionWork<T>,
): Promise<T> {
  return db.connection().execute(async (connection) => {
    // Held back with the work's first statements where the connection can (a write's whole
    // transaction is then one message to SQLite's writer thread).
    await runDeferrable(connection, begin.compile(connection));
    let result: T;
    try {
      result = await work(connection);
    } catch (error) {
      try {
        await sql`rollback`.execute(connection);
      } catch {
        // SQLite may have rolled back already (e.g. after SQLITE_FULL); the first error is the news.
      }
      throw error;
    }
    await sql`commit`.execute(connection);
    return result;
  });
}
