/**
 * A PATCH `path` that names a whole extension schema, such as
 * `"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"` (RFC 7644 §3.10: an extension's
 * attributes are named with the schema URN as prefix, so the URN alone names them all). The
 * operation is turned into what the engine already knows — remove steps for the attributes it
 * clears, and a path-less operation carrying the value under the URN — so the value is validated,
 * normalized and applied exactly as inside a path-less PATCH, with the same errors.
 */
import { ScimType } from "../../errors.js";
import { patchPathOf } from "../path/patch-path.js";
import { flattenInput } from "../schema/normalize-resource.js";
import { isPlainObject } from "../schema/normalize-value.js";
import type { SchemaDefinition } from "../schema/attribute-definition.js";
import type { ResourceSchema } from "../schema/schema-registry.js";
import { abortPatch } from "./patch-failure.js";
import type { PatchOperation } from "./patch-request.js";
import type { PatchStep } from "./patch-step.js";

/** What an operation on a whole extension comes to. */
export interface ExtensionOperation {
  /** Removals of the extension's attributes the operation clears, applied first. */
  readonly removals: readonly PatchStep[];
  /** The value as a path-less operation (`{"<urn>": value}`), applied after; absent for a remove. */
  readonly pathless?: PatchOperation;
}

/**
 * The extension of `schema` whose URN `path` is, case-insensitively (RFC 7643 §2.1 extends to
 * URNs), or undefined for any other path. The core schema's URN is not one: a path naming the
 * whole resource has no meaning in RFC 7644 §3.5.2, and stays an `invalidPath`.
 */
export function wholeExtensionOf(schema: ResourceSchema, path: string): SchemaDefinition | undefined {
  const urn = path.trim().toLowerCase();
  return schema.extensions.find((extension) => extension.schema.id.toLowerCase() === urn)?.schema;
}

/**
 * Splits `operation`, whose path names `extension`, into removals and a path-less value:
 * - `add` merges the value's attributes into the extension, as a path-less add of
 *   `{"<urn>": value}` would (RFC 7644 §3.5.2.1);
 * - `replace` makes the extension hold exactly the value's attributes: the writable attributes the
 *   value does not name are removed, the named ones replaced as a path-less replace does (a named
 *   complex attribute keeps the sub-attributes the value leaves out, RFC 7644 §3.5.2.3);
 * - `remove` removes every writable attribute, so the extension and its URN in `schemas` go
 *   (RFC 7644 §3.5.2.2). Removing a set immutable or a required attribute answers `mutability`,
 *   as for a path naming it.
 *
 * Throws 400 `invalidValue` for an add or replace whose value is not an object, and for a remove
 * that carries a value (there is nothing in an extension a value could select).
 */
export function splitExtensionOperation(
  schema: ResourceSchema,
  extension: SchemaDefinition,
  operation: PatchOperation,
): ExtensionOperation {
  const origin = `Operations[${operation.index}]`;
  const { path: _path, ...pathless } = operation;
  if (operation.op === "remove") {
    if (operation.hasValue && operation.value !== null) {
      abortPatch(
        ScimType.invalidValue,
        `${origin}: "remove" of the whole extension "${extension.id}" takes no "value"; to remove some of its attributes, name them in "path" ("${extension.id}:department").`,
      );
    }
    return { removals: removalsOf(extension, origin, new Set()) };
  }
  // RFC 7644 §3.5.2.1 and §3.5.2.3: the operation "MUST contain a value member"; §3.12 gives `invalidValue`.
  if (!operation.hasValue || !isPlainObject(operation.value)) {
    abortPatch(
      ScimType.invalidValue,
      `${origin}: with a "path" naming the extension "${extension.id}", "${operation.op}" needs a "value" that is an object of its attributes.`,
    );
  }
  const value = { [extension.id]: operation.value };
  const named = new Set(
    flattenInput(schema, value)
      .entries.filter((entry) => entry.path.schema === extension.id)
      .map((entry) => entry.path.attribute.name),
  );
  return {
    removals: operation.op === "replace" ? removalsOf(extension, origin, named) : [],
    pathless: { ...pathless, hasValue: true, value },
  };
}

/** A remove step for each attribute of `extension` a client may write, except those in `kept`. */
function removalsOf(extension: SchemaDefinition, origin: string, kept: ReadonlySet<string>): PatchStep[] {
  // readOnly attributes are the server's (RFC 7644 §3.5.2: "MUST NOT modify"), so they stay.
  return extension.attributes
    .filter((attribute) => attribute.mutability !== "readOnly" && !kept.has(attribute.name))
    .map((attribute) => ({
      op: "remove",
      path: patchPathOf({ schema: extension.id, extension: true, attribute }, `${extension.id}:${attribute.name}`),
      hasValue: false,
      value: undefined,
      origin,
    }));
}
