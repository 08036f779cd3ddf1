/**
 * Trying a schema change a database may refuse (an extension it lacks, a module its build left
 * out) without losing the migration transaction: PostgreSQL aborts a whole transaction on any
 * error, so the attempt runs in a savepoint, which PostgreSQL and SQLite both roll back to.
 */
import { sql, type Kysely } from "kysely";
import type { SqlStoreDatabase } from "../sql-tables.js";

/** How an attempt went: done, or refused with the database's error. */
export type Attempt = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

/**
 * Runs `work` in a savepoint of the transaction `trx`. On failure it rolls back to the savepoint
 * — the transaction stays usable, as if `work` had not run — and reports the error instead of
 * throwing it.
 *
 * @example const made = await attemptInSavepoint(trx, () => sql`create extension pg_trgm`.execute(trx));
 */
export async function attemptInSavepoint(trx: Kysely<SqlStoreDatabase>, work: () => Promise<unknown>): Promise<Attempt> {
  await sql`savepoint scimkit_attempt`.execute(trx);
  try {
    await work();
  } catch (error) {
    await sql`rollback to savepoint scimkit_attempt`.execute(trx);
    await sql`release savepoint scimkit_attempt`.execute(trx);
    return { ok: false, error };
  }
  await sql`release savepoint scimkit_attempt`.execute(trx);
  return { ok: true };
}
