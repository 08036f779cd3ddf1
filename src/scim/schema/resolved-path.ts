import type { AttributeDefinition } from "./attribute-definition.js";

/**
 * An attribute path bound to a schema: canonical names plus the definitions that filters,
 * PATCH, projection and SQL compilation need (type, caseExact, multiValued), so no consumer has
 * to look anything up again.
 */
export interface ResolvedPath {
  /** Canonical URN of the schema that defines the attribute; common attributes (`id`, `meta`, `externalId`, `schemas`) carry the core schema's URN. */
  readonly schema: string;
  /** True when the attribute lives in an extension, i.e. under the extension's URN key in the resource JSON. */
  readonly extension: boolean;
  /** The top-level attribute. */
  readonly attribute: AttributeDefinition;
  /** The sub-attribute, when the path names one. */
  readonly subAttribute?: AttributeDefinition;
}

/** The attribute whose value a path ultimately reads: the sub-attribute if any, else the attribute. */
export function leafOf(path: ResolvedPath): AttributeDefinition {
  return path.subAttribute ?? path.attribute;
}

/** Canonical dotted text of a path, with its URN prefix for extensions (`urn:…:User:manager.value`). */
export function formatPath(path: ResolvedPath): string {
  const local = path.subAttribute ? `${path.attribute.name}.${path.subAttribute.name}` : path.attribute.name;
  return path.extension ? `${path.schema}:${local}` : local;
}
