import type { ScimError } from "./errors.js";

/**
 * What core parsers and validators return instead of throwing: pure code reports, the HTTP layer
 * decides (architecture §3).
 */
export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ScimError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T = never>(error: ScimError): Result<T> {
  return { ok: false, error };
}

/** Returns the value or throws the error: for callers (tests, the HTTP layer) that want exceptions. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}
