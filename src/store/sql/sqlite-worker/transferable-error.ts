/**
 * Errors across the thread boundary. Structured clone keeps only the message of an error whose
 * class it does not know, and better-sqlite3's `SqliteError` carries what the store decides on
 * in `code` (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY`, …) and `name`, so both travel as data.
 */

/** An error as plain data. */
export interface TransferableError {
  readonly name: string;
  readonly message: string;
  /** better-sqlite3's extended result code, e.g. `"SQLITE_CONSTRAINT_PRIMARYKEY"`; absent for other errors. */
  readonly code?: string;
}

/**
 * `error`, thrown in a worker thread, as data to post to the main thread.
 *
 * @example port.postMessage({ kind: "failed", id, error: toTransferableError(error) })
 */
export function toTransferableError(error: unknown): TransferableError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const code = (error as Error & { readonly code?: unknown }).code;
  return { name: error.name, message: error.message, ...(typeof code === "string" ? { code } : {}) };
}

/**
 * An `Error` of the main thread with the name, message and code of `transferred`, its stack the
 * caller's (where the statement was issued, which is what a reader of the log needs).
 *
 * @example throw fromTransferableError(reply.error) // error.code === "SQLITE_CONSTRAINT_UNIQUE"
 */
export function fromTransferableError(transferred: TransferableError): Error & { readonly code?: string } {
  const error: Error & { code?: string } = new Error(transferred.message);
  error.name = transferred.name;
  if (transferred.code !== undefined) error.code = transferred.code;
  const frames = error.stack?.indexOf("\n") ?? -1;
  error.stack = `${transferred.name}: ${transferred.message}${frames === -1 ? "" : (error.stack ?? "").slice(frames)}`;
  return error;
}
