/**
 * The pool the PostgreSQL store queries through, translating a lost or refused connection into
 * the store's 503 (`databaseUnavailableError`) at the one place every query passes — resources,
 * tokens and analytics alike — so a client sees "retry later" instead of a 500.
 */
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";
import { isConnectionFailure } from "./is-connection-failure.js";
import { databaseUnavailableError } from "./database-unavailable-error.js";

function translated(error: unknown): unknown {
  return isConnectionFailure(error) ? databaseUnavailableError(error) : error;
}

/** The part of pg's client, an EventEmitter, that `PostgresPoolClient` does not declare. */
interface ClientEvents {
  on?(event: "error", listener: (error: Error) => void): unknown;
}

function guardedClient(client: PostgresPoolClient): PostgresPoolClient {
  // pg emits 'error' on a client whose connection dies, and pg-pool listens only while the client
  // is idle: one checked out (say, between the statements of a transaction) would raise an
  // unheard 'error' event when the server restarts, which ends the process. The statement in
  // flight fails on its own, and pg-pool discards the client when it comes back.
  (client as PostgresPoolClient & ClientEvents).on?.("error", () => {});
  function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(
    first: string | PostgresCursor<R>,
    parameters: ReadonlyArray<unknown> = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Cursors are not configured for the store; one would report its own errors as they come.
    if (typeof first !== "string") return client.query(first);
    return client.query<R>(first, parameters).catch((error: unknown) => {
      throw translated(error);
    });
  }
  // release() with no argument: pg-pool discards a client whose connection failed by itself.
  return { query, release: () => client.release() };
}

/**
 * `pool` with connection failures — on acquiring a client or in any of its queries — thrown as
 * a 503 `ScimError` with `retryAfter` (`databaseUnavailableError`); every other error passes
 * unchanged, so unique violations and the like are still the dialect's to translate.
 *
 * @example new Kysely({ dialect: new PostgresDialect({ pool: unavailableWhenDisconnected(pool) }) })
 */
export function unavailableWhenDisconnected(pool: PostgresPool): PostgresPool {
  // Kysely keeps a connection per client object, so a client keeps one wrapper.
  const wrappers = new WeakMap<PostgresPoolClient, PostgresPoolClient>();
  return {
    async connect() {
      let client: PostgresPoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw translated(error);
      }
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = guardedClient(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
