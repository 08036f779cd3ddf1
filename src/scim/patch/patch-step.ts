/**
 * One unit of PATCH work: an operation applied to one attribute. An operation with a path is one
 * step; a path-less add or replace becomes one step per attribute of its value.
 */
import type { PatchPath } from "../path/patch-path.js";
import type { PatchOpName } from "./patch-request.js";

export interface PatchStep {
  readonly op: PatchOpName;
  readonly path: PatchPath;
  /** Whether a `value` was supplied (for a remove, a value narrows what is removed). */
  readonly hasValue: boolean;
  /** The raw value as the client sent it; normalized by whoever applies the step. */
  readonly value: unknown;
  /** `Operations[2]`: where the step came from, for error details. */
  readonly origin: string;
}
