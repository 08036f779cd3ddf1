/**
 * The SQL stores' answer when the database cannot be reached (architecture §4).
 */
import { scimError, type ScimError } from "../../errors.js";

/** Seconds a client is asked to wait when the database cannot be reached: about a restart's length. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * 503 with `Retry-After` (RFC 9110 §15.6.4, §10.2.3): the database could not be reached or
 * dropped the connection, so the request reached no verdict. A write in flight was rolled back
 * with its connection, unless the connection was lost while COMMIT was on its way back.
 */
export function databaseUnavailableError(cause?: unknown): ScimError {
  const error = scimError(
    "unavailable",
    `The service cannot reach its database. Retry in ${DATABASE_RETRY_AFTER_SECONDS} seconds; if this persists, the operator should check that the database is running and reachable.`,
    { retryAfter: DATABASE_RETRY_AFTER_SECONDS },
  );
  // For the operator's logs; the error body never shows it.
  if (cause !== undefined) error.cause = cause;
  return error;
}
