/**
 * The `ScimError`s the SQL store throws (DESIGN §3, RFC 7644 §3.12), worded as the memory store
 * words them, so a client sees the same answer whatever store backs the router.
 */
import { ScimError, ScimType } from "../../errors.js";

// Unknown ids are the client's own input, but a push of 10,000 of them should not make a 1 MB detail.
const MAX_NAMED_IDS = 20;

/** 409 `uniqueness` (RFC 7644 §3.3, §3.12). Naming only the attribute reveals nothing of the holder. */
export function uniquenessError(attribute: string): ScimError {
  return new ScimError(409, ScimType.uniqueness, `${attribute} must be unique: another resource already has this value`);
}

/** 412 without a scimType (RFC 7644 §3.14): the stored version is not the expected one. */
export function preconditionFailedError(): ScimError {
  return new ScimError(412, undefined, "The resource has changed since the version given as a precondition");
}

/** 400 `invalidValue` for member ids that name no resource of the organization (`unknownMembers: "reject"`). */
export function unknownMembersError(ids: readonly string[]): ScimError {
  const named = ids.slice(0, MAX_NAMED_IDS).join(", ");
  const more = ids.length > MAX_NAMED_IDS ? ` and ${ids.length - MAX_NAMED_IDS} more` : "";
  return new ScimError(400, ScimType.invalidValue, `members: no resource of this organization has the id ${named}${more}`);
}

/** Seconds a client is asked to wait when the database cannot be reached: about a restart's length. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * 503 with `Retry-After` (RFC 9110 §15.6.4, §10.2.3): the database could not be reached or
 * dropped the connection, so the request reached no verdict. A write in flight was rolled back
 * with its connection, unless the connection was lost while COMMIT was on its way back.
 */
export function databaseUnavailableError(cause?: unknown): ScimError {
  const error = new ScimError(
    503,
    undefined,
    `The service cannot reach its database. Retry in ${DATABASE_RETRY_AFTER_SECONDS} seconds; if this persists, the operator should check that the database is running and reachable.`,
    [],
    { retryAfter: DATABASE_RETRY_AFTER_SECONDS },
  );
  // For the operator's logs; the error body never shows it.
  if (cause !== undefined) error.cause = cause;
  return error;
}
