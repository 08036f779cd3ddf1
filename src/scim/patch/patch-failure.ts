/**
 * How the PATCH engine stops at the first error: it throws the `ScimError` itself, and
 * `applyPatch` turns it into a failed `Result`, so no half-applied resource escapes (RFC 7644
 * §3.5.2: "A patch request, regardless of the number of operations, SHALL be treated as atomic").
 */
import { badRequest, invalidValueError, restated, type ScimType, type ValidationIssue } from "../../errors.js";

/** Stops the patch with a 400 of the given `scimType`. */
export function abortPatch(scimType: ScimType, detail: string): never {
  throw badRequest(scimType, detail);
}

/** Stops the patch with one 400 `invalidValue` naming every issue, prefixed by the step's origin. */
export function abortInvalidValue(origin: string, issues: readonly ValidationIssue[]): never {
  const folded = invalidValueError(issues);
  throw restated(folded, `${origin}: ${folded.detail}`);
}
