/**
 * Telling a database that cannot be reached from a query that failed on its own merits: the
 * first is worth a 503 and a retry (the request did not reach a verdict), the second is a
 * client error or a fault. Only failures of the connection count; a statement PostgreSQL
 * refused stays what it was.
 */

// SQLSTATE class 08 connection_exception (08P01 protocol_violation excepted: that is a bug, not
// an outage), 57P01 admin_shutdown (a restart or pg_terminate_backend), 57P02 crash_shutdown,
// 57P03 cannot_connect_now (starting up or in recovery), 53300 too_many_connections.
const CONNECTION_STATES = new Set(["08000", "08001", "08003", "08004", "08006", "57P01", "57P02", "57P03", "53300"]);

// Node's socket errors: nothing listens, the peer went away, the route or the name is gone.
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);

// What pg and pg-pool throw without a code: a socket closed under a query, a connect or pool
// acquisition past `connectionTimeoutMillis`, a client whose connection already failed.
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^timeout expired$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
];

function field(error: unknown, name: "code" | "message"): string | undefined {
  const value = typeof error === "object" && error !== null ? (error as Readonly<Record<string, unknown>>)[name] : undefined;
  return typeof value === "string" ? value : undefined;
}

/**
 * Whether `error`, as pg or Node reports it, says the database could not be reached or dropped
 * the connection, rather than that it refused a statement.
 *
 * @example isConnectionFailure(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" })) // true
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = field(error, "code");
  if (code !== undefined && (CONNECTION_STATES.has(code) || SOCKET_CODES.has(code))) return true;
  // Node 20 tries every address of `localhost` and reports their refusals together.
  if (error instanceof AggregateError && error.errors.some(isConnectionFailure)) return true;
  const message = field(error, "message");
  return code === undefined && message !== undefined && DRIVER_MESSAGES.some((pattern) => pattern.test(message));
}
