/**
 * A PATCH operation's `path` (RFC 7644 §3.5.2, `PATH = attrPath / valuePath [subAttr]`) bound to
 * the schema of one resource type.
 */
import type { ValuePathFilter } from "../filter/filter-ast.js";
import type { AttributeDefinition } from "../schema/attribute-definition.js";
import type { ResolvedPath } from "../schema/resolved-path.js";

/**
 * `name.familyName` is `{target: name, subAttribute: familyName}`; `emails[type eq "work"].value`
 * is `{target: emails, filter: emails[type eq "work"], subAttribute: value}`.
 */
export interface PatchPath {
  /** The path as the client wrote it, for error details. */
  readonly text: string;
  /** The top-level attribute the operation acts on; never carries a sub-attribute. */
  readonly target: ResolvedPath;
  /**
   * The value selection filter, resolved: a `valuePath` node on `target` whose inner paths are full
   * `attr.sub` paths, so `matchesFilter({[attr]: [element]}, filter)` tests one element. Present
   * only on multi-valued complex attributes.
   */
  readonly filter?: ValuePathFilter<ResolvedPath>;
  /** The sub-attribute after the attribute (`name.familyName`) or after the filter (`emails[…].value`). */
  readonly subAttribute?: AttributeDefinition;
}

/** A filter-less `PatchPath` for an already-resolved path, such as a key of a path-less PATCH value. */
export function patchPathOf(path: ResolvedPath, text: string): PatchPath {
  const target: ResolvedPath = { schema: path.schema, extension: path.extension, attribute: path.attribute };
  return path.subAttribute ? { text, target, subAttribute: path.subAttribute } : { text, target };
}
