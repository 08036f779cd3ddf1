/**
 * The application's own unique indexes as 409 `uniqueness` (RFC 7644 §3.3): a write that breaks
 * one fails in the database, and the client must hear that the value is taken, not a 500.
 */
import type { ScimError } from "../../../errors.js";
import { uniquenessError } from "../../store-errors.js";

function field(error: unknown, name: string): string | undefined {
  const value = typeof error === "object" && error !== null ? (error as Readonly<Record<string, unknown>>)[name] : undefined;
  return typeof value === "string" ? value : undefined;
}

/**
 * The 409 for `error` when it is a unique violation (SQLite `SQLITE_CONSTRAINT_UNIQUE` or
 * `…_PRIMARYKEY`, PostgreSQL SQLSTATE 23505), naming the table; undefined for any other error.
 */
export function uniqueViolation(error: unknown, table: string): ScimError | undefined {
  const code = field(error, "code");
  const unique = code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
  return unique ? uniquenessError(`A value kept in a unique column of ${table}`) : undefined;
}
