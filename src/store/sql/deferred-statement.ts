/**
 * Statements of a write transaction whose result the caller does not read (issue 29: one round
 * trip per write transaction). A connection that can hold them back — the SQLite worker's, where
 * each statement is a message to the writer thread and back while the write lock is held — sends
 * them with the next statement whose result is read (a `select`, `commit`), in order, in one
 * message. Any other connection runs them at once. Either way a deferred statement's failure fails
 * the transaction before it commits: only the statement that reports it differs.
 */
import type { CompiledQuery, Kysely } from "kysely";

/** What a deferred statement must have changed for the transaction to go on. */
export interface RowExpectation {
  /** The fewest rows it must change (e.g. 1 for an insert that skips a conflict). */
  readonly atLeast: number;
  /** The error to fail the transaction with when it changed fewer. */
  readonly otherwise: () => Error;
}

/** A statement a connection may hold back, with what it must have done. */
export interface Deferral {
  readonly expectation?: RowExpectation;
}

const deferrable = new WeakMap<CompiledQuery, Deferral>();
// The deferral of every statement without an expectation: one object, not one per statement.
const WITHOUT_EXPECTATION: Deferral = Object.freeze({});
const heldBack = new WeakSet<CompiledQuery>();

/**
 * For a connection that can hold statements back: `query`'s deferral, noted as taken (so the
 * caller leaves its expectation to the connection), or `undefined` when `query` must run now.
 *
 * @example const deferral = takeDeferral(query); if (deferral) { pending.push({ query, deferral }); return { rows: [] }; }
 */
export function takeDeferral(query: CompiledQuery): Deferral | undefined {
  const deferral = deferrable.get(query);
  if (deferral !== undefined) heldBack.add(query);
  return deferral;
}

/** A Kysely instance or transaction: anything that runs a compiled query. */
type QueryRunner = Pick<Kysely<unknown>, "executeQuery">;

/**
 * Runs `query`, whose result the caller does not read, inside a transaction of `db`; a connection
 * may hold it back until the next statement whose result is read. With `expectation`, a statement
 * that changed fewer rows fails the transaction with `expectation.otherwise()`.
 *
 * @example await runDeferrable(trx, insert.compile(), { atLeast: 1, otherwise: () => uniquenessError("userName") });
 */
export async function runDeferrable(db: QueryRunner, query: CompiledQuery, expectation?: RowExpectation): Promise<void> {
  deferrable.set(query, expectation === undefined ? WITHOUT_EXPECTATION : { expectation });
  const result = await db.executeQuery(query);
  if (expectation === undefined || heldBack.has(query)) return;
  if ((result.numAffectedRows ?? 0n) < BigInt(expectation.atLeast)) throw expectation.otherwise();
}
