/**
 * PostgreSQL (pg): the filter hooks of `postgresFilterDialect` plus the store hooks. Writes run
 * under READ COMMITTED with row locks taken in one global order — referenced members, then the
 * row written, then the groups a delete touches — so concurrent deltas from many processes all
 * apply and do not deadlock.
 */
import { sql, type RawBuilder } from "kysely";
import { scimError } from "../../../errors.js";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import type { FilterDialect } from "../filter/filter-dialect.js";
import { createPostgresFilterDialect, type PostgresFilterDialectOptions } from "../filter/postgres-filter-dialect.js";
import { retryTransient } from "./retry-transient.js";
import type { RowLock, SqlDialect } from "./sql-dialect.js";

function sqlState(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

// SQLSTATE 40P01 deadlock_detected and 40001 serialization_failure: timing, not a fault.
const TRANSIENT = new Set(["40P01", "40001"]);
const isTransient = (error: unknown): boolean => TRANSIENT.has(sqlState(error) ?? "");

// 22P05 untranslatable_character (a \u0000 escape in jsonb) and 22021 character_not_in_repertoire
// (a NUL byte in text): PostgreSQL stores no U+0000 anywhere, so such input can only be refused.
const NUL_CHARACTER = new Set(["22P05", "22021"]);

// 54000 program_limit_exceeded, raised for a B-tree entry over a third of a page (about 2.7 kB
// after compression): a userName, externalId or displayName that long cannot be indexed, so it
// can only be refused. Other causes of 54000 are our own limits and stay faults.
const isIndexRowTooLarge = (error: unknown): boolean => {
  const message = typeof error === "object" && error !== null ? (error as { readonly message?: unknown }).message : undefined;
  return sqlState(error) === "54000" && typeof message === "string" && message.includes("index row");
};

// FOR KEY SHARE blocks only deletes (and key updates), FOR NO KEY UPDATE only other updaters, so
// adding a user to a group never waits for an edit of that user.
const LOCKS: Readonly<Record<RowLock, RawBuilder<unknown>>> = {
  reference: sql`for key share`,
  update: sql`for no key update`,
  delete: sql`for update`,
};

/** The store hooks, the same for every PostgreSQL dialect whatever its filter options. */
const storeHooks: Omit<SqlDialect, keyof FilterDialect> = {
  // "C" collation: byte order of UTF-8, i.e. code-point order, whatever the database's locale.
  columnTypes: { key: sql`text collate "C"`, text: sql`text`, json: sql`jsonb`, counter: sql`bigint` },
  maxParameters: 65_535,
  toJson: (value) => JSON.stringify(value),
  // pg parses jsonb itself; the object is fresh per query, so the caller may own it.
  fromJson: (stored) => (typeof stored === "string" ? JSON.parse(stored) : stored) as ScimObject,
  rowLock: (lock) => LOCKS[lock],
  translateError: (error) => {
    if (NUL_CHARACTER.has(sqlState(error) ?? "")) {
      return scimError("invalidValue", "A value holds the character U+0000, which this service cannot store");
    }
    if (isIndexRowTooLarge(error)) {
      return scimError("invalidValue", "A userName, externalId or displayName is too long for this service to index; shorten it");
    }
    return error;
  },
  ignoreConflicts: (query) => query.onConflict((conflict) => conflict.doNothing()),
  writeTransaction: (db, work) => retryTransient(() => db.transaction().execute(work), isTransient),
  lazyCommit: async (trx) => {
    await sql`set local synchronous_commit = off`.execute(trx);
  },
  readTransaction: (db, work) =>
    retryTransient(
      () =>
        db
          .transaction()
          .setIsolationLevel("repeatable read")
          .setAccessMode("read only")
          .execute(async (trx) => {
            // A filter's per-row JSON subquery makes the planner cost a list above jit_above_cost
            // even where an index leaves a few thousand rows; compiling then takes longer than the
            // query runs (at 100,000 users, `emails[… co "@dept7."]` with its total: ~25 → ~17 ms).
            await sql`set local jit = off`.execute(trx);
            return work(trx);
          }),
      isTransient,
    ),
  migrationTransaction: (db, work) =>
    db.transaction().execute(async (trx) => {
      // Keyed by search_path, so stores in different schemas of one database migrate independently.
      await sql`select pg_advisory_xact_lock(hashtext('scimkit.migrate:' || current_setting('search_path')))`.execute(trx);
      return work(trx);
    }),
};

/**
 * A PostgreSQL dialect of the SQL store; `options` choose the filter's case folding (ICU's root
 * collation by default, which folds case as JavaScript does).
 *
 * @example createPostgresDialect({ caseFoldCollation: null }) // a server built without ICU
 */
export function createPostgresDialect(options: PostgresFilterDialectOptions = {}): SqlDialect {
  return { ...createPostgresFilterDialect(options), ...storeHooks };
}

/** The PostgreSQL dialect of the SQL store, with ICU case folding (`und-x-icu`). */
export const postgresDialect: SqlDialect = createPostgresDialect();
