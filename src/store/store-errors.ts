/**
 * The `ScimError`s every store throws for the same refusals (architecture §3, RFC 7644 §3.12), worded
 * once, so a client sees the same answer whatever store backs the router.
 */
import { type ScimError, scimError } from "../errors.js";

// Unknown ids are the client's own input, but a push of 10,000 of them should not make a 1 MB detail.
const MAX_NAMED_IDS = 20;

/** 409 `uniqueness` (RFC 7644 §3.3, §3.12). Naming only the attribute reveals nothing of the holder. */
export function uniquenessError(attribute: string): ScimError {
  return scimError("uniqueness", `${attribute} must be unique: another resource already has this value`);
}

/** 412 without a scimType (RFC 7644 §3.14): the stored version is not the expected one. */
export function preconditionFailedError(): ScimError {
  return scimError("preconditionFailed", "The resource has changed since the version given as a precondition");
}

/** 400 `invalidValue` for member ids that name no resource of the organization (`unknownMembers: "reject"`). */
export function unknownMembersError(ids: readonly string[]): ScimError {
  const named = ids.slice(0, MAX_NAMED_IDS).join(", ");
  const more = ids.length > MAX_NAMED_IDS ? ` and ${ids.length - MAX_NAMED_IDS} more` : "";
  return scimError("invalidValue", `members: no resource of this organization has the id ${named}${more}`);
}
