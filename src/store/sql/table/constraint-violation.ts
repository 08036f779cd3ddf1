/**
 * The application's own constraints as SCIM errors: a write that breaks one of its unique indexes
 * is a 409 `uniqueness` (RFC 7644 §3.3), one that leaves a NOT NULL column empty a 400
 * `invalidValue` naming the attribute — the client must hear what to change, not a 500.
 */
import { type ScimError, scimError } from "../../../errors.js";
import { uniquenessError } from "../../store-errors.js";

function field(error: unknown, name: string): string | undefined {
  const value = typeof error === "object" && error !== null ? (error as Readonly<Record<string, unknown>>)[name] : undefined;
  return typeof value === "string" ? value : undefined;
}

/**
 * The `ScimError` for `error` when it is a constraint of the application's table `table` the
 * client's input broke — a unique violation (SQLite `SQLITE_CONSTRAINT_UNIQUE` or `…_PRIMARYKEY`,
 * PostgreSQL 23505) or a NOT NULL one (`SQLITE_CONSTRAINT_NOTNULL`, 23502) — else undefined.
 * `attributeOf` names the SCIM attribute a column holds.
 */
export function constraintViolation(
  error: unknown,
  table: string,
  attributeOf: (column: string) => string | undefined,
): ScimError | undefined {
  const code = field(error, "code");
  if (code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    return uniquenessError(`A value kept in a unique column of ${table}`);
  }
  if (code === "23502" || code === "SQLITE_CONSTRAINT_NOTNULL") {
    // PostgreSQL names the column; SQLite says "NOT NULL constraint failed: users.is_active".
    const column = field(error, "column") ?? /\.([^.\s]+)$/.exec(field(error, "message") ?? "")?.[1];
    const attribute = column === undefined ? undefined : attributeOf(column);
    return scimError("invalidValue", `${attribute ?? "An attribute"} is required by this service and cannot be removed`);
  }
  return undefined;
}
