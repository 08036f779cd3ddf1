/**
 * How the PATCH engine stops at the first error: a private exception carrying the `ScimError`,
 * caught by `applyPatch` and turned into a failed `Result`, so no half-applied resource escapes
 * (RFC 7644 §3.5.2: "A patch request, regardless of the number of operations, SHALL be treated as
 * atomic").
 */
import { ScimError, badRequest, invalidValueError, type ScimType, type ValidationIssue } from "../../errors.js";

/** Thrown inside the PATCH engine only; never escapes `applyPatch`. */
export class PatchFailure extends Error {
  readonly error: ScimError;

  constructor(error: ScimError) {
    super(error.detail);
    this.name = "PatchFailure";
    this.error = error;
  }
}

/** Stops the patch with a 400 of the given `scimType`. */
export function abortPatch(scimType: ScimType, detail: string): never {
  throw new PatchFailure(badRequest(scimType, detail));
}

/** Stops the patch with one 400 `invalidValue` naming every issue, prefixed by the step's origin. */
export function abortInvalidValue(origin: string, issues: readonly ValidationIssue[]): never {
  const folded = invalidValueError(issues);
  throw new PatchFailure(new ScimError(folded.status, folded.scimType, `${origin}: ${folded.detail}`, issues));
}
