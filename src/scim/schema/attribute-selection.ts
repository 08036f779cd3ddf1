/**
 * A set of attributes named by paths (`emails`, `name.givenName`, `urn:…:User:department`, or a
 * whole extension by its URN), as the `attributes`/`excludedAttributes` parameters (RFC 7644
 * §3.9) and profiles name them.
 */
import type { ResourceSchema } from "./schema-registry.js";

/** What a selection says about one attribute: all of it, some sub-attributes (lower-cased names), or nothing. */
export type AttributeCoverage = "all" | ReadonlySet<string> | undefined;

export interface AttributeSelection {
  /** True when no path was given. */
  readonly isEmpty: boolean;
  /** How much of `attribute` of the schema `schemaId` (canonical URN) the selection covers. */
  coverage(schemaId: string, attribute: string): AttributeCoverage;
  /** Paths that named nothing in the schemas. */
  readonly unknown: readonly string[];
}

/** Compiles paths into a selection for one resource type. */
export function selectAttributes(schema: ResourceSchema, paths: readonly string[]): AttributeSelection {
  const wholeSchemas = new Set<string>();
  // schema URN → attribute name → coverage; looked up per attribute of every resource projected.
  const attributes = new Map<string, Map<string, "all" | Set<string>>>();
  const unknown: string[] = [];
  for (const raw of paths) {
    const text = raw.trim();
    if (text === "") continue;
    const named = schema.findSchema(text);
    if (named) {
      wholeSchemas.add(named.id);
      continue;
    }
    const resolution = schema.resolvePath(text);
    if (!resolution.ok) {
      unknown.push(text);
      continue;
    }
    const { path } = resolution;
    let bySchema = attributes.get(path.schema);
    if (!bySchema) {
      bySchema = new Map();
      attributes.set(path.schema, bySchema);
    }
    const current = bySchema.get(path.attribute.name);
    if (!path.subAttribute || current === "all") {
      bySchema.set(path.attribute.name, "all");
    } else {
      const subs = current ?? new Set<string>();
      subs.add(path.subAttribute.name.toLowerCase());
      bySchema.set(path.attribute.name, subs);
    }
  }
  return {
    isEmpty: wholeSchemas.size === 0 && attributes.size === 0,
    coverage: (schemaId, attribute) => (wholeSchemas.has(schemaId) ? "all" : attributes.get(schemaId)?.get(attribute)),
    unknown,
  };
}
