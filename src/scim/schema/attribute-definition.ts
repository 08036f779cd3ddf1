/**
 * The attribute model of RFC 7643 §2.2 and §7: every characteristic a SCIM attribute can declare.
 * Schema definitions are plain readonly data so that validation, filtering, projection and the
 * discovery documents all read the same source.
 */

/** RFC 7643 §2.3 data types. */
export type AttributeType = "string" | "boolean" | "decimal" | "integer" | "dateTime" | "binary" | "reference" | "complex";

/** RFC 7643 §7 `mutability`. */
export type Mutability = "readOnly" | "readWrite" | "immutable" | "writeOnly";

/** RFC 7643 §7 `returned`. */
export type Returned = "always" | "never" | "default" | "request";

/** RFC 7643 §7 `uniqueness`. */
export type Uniqueness = "none" | "server" | "global";

/** One attribute or sub-attribute of a schema (RFC 7643 §7). */
export interface AttributeDefinition {
  /** Canonical name, as the schema spells it (`userName`, `$ref`). Matching is case-insensitive. */
  readonly name: string;
  readonly type: AttributeType;
  readonly multiValued: boolean;
  readonly description: string;
  readonly required: boolean;
  /** Only meaningful for `string` and `reference`; `false` means comparisons ignore case. */
  readonly caseExact: boolean;
  readonly mutability: Mutability;
  readonly returned: Returned;
  readonly uniqueness: Uniqueness;
  /** Suggested values (RFC 7643 §7: a client MAY use others, so they are advertised, not enforced). */
  readonly canonicalValues?: readonly string[];
  /** For `reference` attributes: `User`, `Group`, `external`, `uri`, … */
  readonly referenceTypes?: readonly string[];
  /** For `complex` attributes only. */
  readonly subAttributes?: readonly AttributeDefinition[];
}

/** A schema (RFC 7643 §7): a URN and its attributes. */
export interface SchemaDefinition {
  /** The schema URN, e.g. `urn:ietf:params:scim:schemas:core:2.0:User`. */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly attributes: readonly AttributeDefinition[];
}

/** A schema extension bound to a resource type (RFC 7643 §6). */
export interface SchemaExtensionReference {
  /** URN of the extension schema. */
  readonly schema: string;
  /** Whether resources of this type must carry the extension. */
  readonly required: boolean;
}

/** A resource type (RFC 7643 §6). */
export interface ResourceTypeDefinition {
  /** `User`, `Group`, … — also the name used in `meta.resourceType`. */
  readonly id: string;
  readonly name: string;
  /** Relative endpoint, e.g. `/Users`. */
  readonly endpoint: string;
  readonly description: string;
  /** URN of the core schema. */
  readonly schema: string;
  readonly schemaExtensions: readonly SchemaExtensionReference[];
  /**
   * Whether resources of this type have members, as a Group does (RFC 7643 §4.2): the core schema
   * must then define a multi-valued complex `members` attribute with a `value` sub-attribute (the
   * registry refuses the type otherwise). Members are kept apart from the attributes, as a
   * membership the store writes in deltas and loads only when asked (architecture §3); PATCH turns
   * member operations into such deltas; the type's events include `members.added`, `.removed`
   * and `.ignored`. Default false.
   *
   * @example { id: "Team", name: "Team", endpoint: "/Teams", description: "Team", schema: TEAM_URN, schemaExtensions: [], hasMembers: true }
   */
  readonly hasMembers?: boolean;
}

/**
 * Fills in the RFC 7643 §2.2 defaults for an attribute so that definitions only spell out what
 * differs from them: not required, not multi-valued, caseExact false, readWrite, returned by
 * default, no uniqueness, type string.
 */
export function attribute(name: string, characteristics: Partial<Omit<AttributeDefinition, "name">> = {}): AttributeDefinition {
  return {
    name,
    type: "string",
    multiValued: false,
    description: "",
    required: false,
    caseExact: false,
    mutability: "readWrite",
    returned: "default",
    uniqueness: "none",
    ...characteristics,
  };
}
