/**
 * The write limits a PATCH request can be held to by its shape alone (architecture §4b: a bound is
 * checked before the work it bounds): the values its operations carry for each multi-valued
 * attribute, and the members they name. Counted in one pass over the operations, before any is
 * normalized or applied and before the resource is read, so a request over a limit costs a pass
 * over its own text, never the seconds that applying thousands of values would.
 */
import { invalidValueError, restated, scimError, type ScimError } from "../../errors.js";
import { fail, ok, type Result } from "../../result.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
import { flattenInput } from "../schema/normalize-resource.js";
import { isPlainObject } from "../schema/normalize-value.js";
import type { ResolvedPath } from "../schema/resolved-path.js";
import type { ResourceSchema } from "../schema/schema-registry.js";
import type { PatchOperation } from "./patch-request.js";

/** The limits `patchBounds` checks; an absent one is not checked. */
export interface PatchBoundsLimits {
  /** As `ApplyPatchOptions.maxValues`. */
  readonly maxValues?: number;
  /** As `ApplyPatchOptions.maxMembers`. */
  readonly maxMembers?: number;
}

/** What the operations carry for one attribute so far. */
interface Carried {
  /** Values carried since the last `replace` of the whole attribute (or from the start). */
  count: number;
}

function isMembers(schema: ResourceSchema, path: ResolvedPath): boolean {
  return schema.resourceType.hasMembers === true && !path.extension && path.attribute.name === "members";
}

/** The `value` of each member element of a raw value (a bare string counts as the id itself). */
function memberIds(value: unknown): unknown[] {
  const elements = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
  return elements.map((element) =>
    isPlainObject(element) ? Object.entries(element).find(([key]) => key.toLowerCase() === "value")?.[1] : element,
  );
}

/** What `patchBounds` has counted so far over a request's operations. */
interface Tally {
  readonly schema: ResourceSchema;
  readonly maxValues: number | undefined;
  readonly maxMembers: number | undefined;
  /** Values carried so far per multi-valued attribute. */
  readonly carried: Map<string, Carried>;
  /** The distinct members named so far. */
  readonly members: Set<string>;
  /** Member filters (`members[value eq "…"]`) name at most one member each. */
  filteredMembers: number;
}

/** Counts what one operation carries for `path` into `tally`; the refusal once a limit is passed. */
function tallied(tally: Tally, operation: PatchOperation, text: string, path: ResolvedPath, value: unknown): ScimError | undefined {
  const { schema, maxValues, maxMembers, carried, members } = tally;
  if (isMembers(schema, path)) {
    if (operation.op === "replace") members.clear();
    // An id that is not a string is the engine's to refuse; here it only counts, once each.
    for (const id of memberIds(value)) members.add(typeof id === "string" ? id : `\u0000${members.size}`);
    const named = members.size + tally.filteredMembers;
    if (maxMembers !== undefined && named > maxMembers) {
      return scimError(
        "payloadTooLarge",
        `Operations[${operation.index}]: the request names ${named} members; the limit is ${maxMembers} (maxMembers).`,
      );
    }
    return undefined;
  }
  if (operation.op === "remove" || maxValues === undefined) return undefined;
  const given = value === null || value === undefined ? 0 : Array.isArray(value) ? value.length : 1;
  const key = `${path.schema}\u0000${path.attribute.name}`;
  const entry = carried.get(key) ?? { count: 0 };
  entry.count = operation.op === "replace" ? given : entry.count + given;
  carried.set(key, entry);
  if (entry.count <= maxValues) return undefined;
  const what = given > maxValues ? `carries ${given} values` : `carries, with the operations before it, ${entry.count} values`;
  const issues = [{ path: text, message: `${what}; the limit is ${maxValues} (maxValues)` }];
  const folded = invalidValueError(issues);
  return restated(folded, `Operations[${operation.index}]: ${folded.detail}`);
}

/**
 * Counts the request's values per multi-valued attribute and its distinct member ids, failing
 * with the error the engine would give once it had applied them: 400 `invalidValue` naming the
 * attribute and `maxValues`, or 413 naming `maxMembers`. An `add` adds to what earlier operations
 * carried for the attribute, a `replace` of the whole attribute starts the count again; values
 * under a filter or a sub-attribute (`emails[type eq "work"].value`) change a selected value
 * rather than carry new ones, and are left to the engine. Operations that are malformed are left
 * to the engine too, which refuses them with its own error.
 */
export function patchBounds(
  schema: ResourceSchema,
  operations: readonly PatchOperation[],
  limits: PatchBoundsLimits,
  tolerances: Tolerances = ALL_TOLERANCES,
): Result<true> {
  const { maxValues, maxMembers } = limits;
  if (maxValues === undefined && maxMembers === undefined) return ok(true);
  const carried = new Map<string, Carried>();
  const members = new Set<string>();
  const tally: Tally = { schema, maxValues, maxMembers, carried, members, filteredMembers: 0 };

  for (const operation of operations) {
    const { path: text, value } = operation;
    if (text === undefined || schema.findSchema(text) !== undefined) {
      // A path-less value, or a whole extension: each multi-valued attribute it carries.
      if (operation.op === "remove" || !isPlainObject(value)) continue;
      const body = text === undefined ? value : { [text]: value };
      for (const entry of flattenInput(schema, body, tolerances).entries) {
        if (!entry.path.attribute.multiValued || entry.path.subAttribute) continue;
        const refusal = tallied(tally, operation, entry.key, entry.path, entry.value);
        if (refusal) return fail(refusal);
      }
      continue;
    }
    const bracket = text.indexOf("[");
    if (bracket >= 0) {
      const named = schema.resolvePath(text.slice(0, bracket).trim());
      if (named.ok && isMembers(schema, named.path)) tally.filteredMembers += 1;
      if (named.ok && isMembers(schema, named.path) && maxMembers !== undefined && members.size + tally.filteredMembers > maxMembers) {
        return fail(
          scimError(
            "payloadTooLarge",
            `Operations[${operation.index}]: the request names ${members.size + tally.filteredMembers} members; the limit is ${maxMembers} (maxMembers).`,
          ),
        );
      }
      continue;
    }
    const resolved = schema.resolvePath(text);
    if (!resolved.ok || !resolved.path.attribute.multiValued || resolved.path.subAttribute) continue;
    // A remove without a value empties the attribute, naming nothing.
    if (operation.op === "remove" && !operation.hasValue) continue;
    const refusal = tallied(tally, operation, text, resolved.path, value);
    if (refusal) return fail(refusal);
  }
  return ok(true);
}
