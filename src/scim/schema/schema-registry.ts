/**
 * The schema registry: the single source that validation, filtering, PATCH, projection and the
 * discovery documents read. It answers, per resource type, which schemas apply and what an
 * attribute path means — case-insensitively (RFC 7643 §2.1), with or without a URN prefix
 * (RFC 7644 §3.10).
 */
import type { AttributeDefinition, ResourceTypeDefinition, SchemaDefinition } from "./attribute-definition.js";
import type { ResolvedPath } from "./resolved-path.js";
import { commonAttributes } from "./common-attributes.js";
import { findSubAttribute } from "./normalize-value.js";
import { coreUserSchema } from "./core-user-schema.js";
import { coreGroupSchema } from "./core-group-schema.js";
import { enterpriseUserSchema } from "./enterprise-user-schema.js";
import { groupResourceType, userResourceType } from "./core-resource-types.js";

/** The outcome of resolving a path: the bound path, or why it does not resolve. */
export type PathResolution = { readonly ok: true; readonly path: ResolvedPath } | { readonly ok: false; readonly reason: string };

/** The schemas of one resource type, with precomputed case-insensitive lookups. */
export interface ResourceSchema {
  readonly resourceType: ResourceTypeDefinition;
  readonly core: SchemaDefinition;
  /** The extensions this resource type accepts, in registration order. */
  readonly extensions: readonly { readonly schema: SchemaDefinition; readonly required: boolean }[];
  /** Core schema attributes followed by the common attributes (`id`, `externalId`, `meta`, `schemas`). */
  readonly coreAttributes: readonly AttributeDefinition[];
  /** The core schema or one of the extensions, by URN, case-insensitively. */
  findSchema(urn: string): SchemaDefinition | undefined;
  /** An attribute of the given schema (core attributes include the common ones), case-insensitively. */
  findAttribute(schema: SchemaDefinition, name: string): AttributeDefinition | undefined;
  /**
   * Binds a path such as `userName`, `name.givenName`, `emails.value`,
   * `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value` or a registered alias.
   * A path without a URN names a core attribute; failing that, an attribute that exactly one
   * extension defines (identity providers send unqualified extension names).
   */
  resolvePath(text: string): PathResolution;
}

/** The registry: schemas and resource types, with one `ResourceSchema` per resource type. */
export interface SchemaRegistry {
  readonly schemas: readonly SchemaDefinition[];
  readonly resourceTypes: readonly ResourceTypeDefinition[];
  /** A schema by URN, case-insensitively. */
  schema(urn: string): SchemaDefinition | undefined;
  /** A resource type by id (`User`), case-insensitively. */
  resourceType(id: string): ResourceSchema | undefined;
}

/** An extension schema attached to an existing resource type. */
export interface ExtensionRegistration {
  readonly resourceType: string;
  readonly schema: string;
  readonly required: boolean;
}

export interface SchemaRegistryOptions {
  /** Extra schemas: extensions, or core schemas of extra resource types. */
  readonly schemas?: readonly SchemaDefinition[];
  /** Extra resource types; their schemas must be registered. */
  readonly resourceTypes?: readonly ResourceTypeDefinition[];
  /** Extensions to attach to resource types already registered (including `User` and `Group`). */
  readonly extensions?: readonly ExtensionRegistration[];
  /** Extra alternative spellings of paths, accepted on input: alias → canonical path. */
  readonly pathAliases?: Readonly<Record<string, string>>;
  /** Leave out the built-in User, Group and EnterpriseUser definitions. Default false. */
  readonly withoutCoreSchemas?: boolean;
}

/**
 * The spec writes the employee number as `…:enterprise:2.0:employeeNumber` (spec §2.3); RFC 7643
 * §4.3 puts it under `…:enterprise:2.0:User:`. Both are accepted on input; the RFC one is emitted.
 */
export const defaultPathAliases: Readonly<Record<string, string>> = {
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber":
    "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber",
};

type NameIndex = ReadonlyMap<string, AttributeDefinition>;

function indexByName(attributes: readonly AttributeDefinition[]): NameIndex {
  const index = new Map<string, AttributeDefinition>();
  for (const attribute of attributes) {
    const key = attribute.name.toLowerCase();
    if (index.has(key)) throw new Error(`Attribute "${attribute.name}" is defined twice`);
    index.set(key, attribute);
  }
  return index;
}

/**
 * A type with members keeps them as a membership of ids (architecture §3), so its core schema must say
 * where they go: a multi-valued complex `members` whose `value` is the member's id (RFC 7643 §4.2).
 */
function assertMembersAttribute(resourceType: ResourceTypeDefinition, core: SchemaDefinition): void {
  const members = core.attributes.find((attribute) => attribute.name.toLowerCase() === "members");
  const hasValue = members?.subAttributes?.some((sub) => sub.name.toLowerCase() === "value") === true;
  if (members?.type !== "complex" || !members.multiValued || !hasValue) {
    throw new Error(
      `Resource type ${resourceType.id} has members, but its schema ${core.id} defines no multi-valued complex "members" attribute with a "value" sub-attribute`,
    );
  }
}

function createResourceSchema(
  resourceType: ResourceTypeDefinition,
  extensions: readonly { readonly schema: SchemaDefinition; readonly required: boolean }[],
  schemaOf: (urn: string) => SchemaDefinition | undefined,
  aliases: ReadonlyMap<string, string>,
): ResourceSchema {
  const core = schemaOf(resourceType.schema);
  if (!core) throw new Error(`Resource type ${resourceType.id}: schema ${resourceType.schema} is not registered`);
  if (resourceType.hasMembers) assertMembersAttribute(resourceType, core);
  const coreAttributes = [...core.attributes, ...commonAttributes];
  const attributeIndex = new Map<SchemaDefinition, NameIndex>([[core, indexByName(coreAttributes)]]);
  for (const extension of extensions) attributeIndex.set(extension.schema, indexByName(extension.schema.attributes));
  const schemasByUrn = new Map<string, SchemaDefinition>(
    [core, ...extensions.map((extension) => extension.schema)].map((schema) => [schema.id.toLowerCase(), schema]),
  );
  // Longest first, so that a URN that prefixes another never captures its paths.
  const urnsByLength = [...schemasByUrn.keys()].sort((a, b) => b.length - a.length);

  const findAttribute = (schema: SchemaDefinition, name: string): AttributeDefinition | undefined =>
    attributeIndex.get(schema)?.get(name.toLowerCase());

  const bind = (schema: SchemaDefinition, local: string, text: string): PathResolution => {
    const [name = "", subName, ...rest] = local.split(".");
    if (rest.length > 0) return { ok: false, reason: `"${text}" nests deeper than attribute.subAttribute` };
    const attribute = findAttribute(schema, name);
    if (!attribute) return { ok: false, reason: `"${text}" is not an attribute of ${schema.id}` };
    const extension = schema !== core;
    if (subName === undefined) return { ok: true, path: { schema: schema.id, extension, attribute } };
    if (attribute.type !== "complex") return { ok: false, reason: `"${attribute.name}" has no sub-attributes` };
    const subAttribute = findSubAttribute(attribute, subName);
    if (!subAttribute) return { ok: false, reason: `"${subName}" is not a sub-attribute of "${attribute.name}"` };
    return { ok: true, path: { schema: schema.id, extension, attribute, subAttribute } };
  };

  const resolvePath = (raw: string): PathResolution => {
    const text = aliases.get(raw.toLowerCase()) ?? raw;
    const lower = text.toLowerCase();
    if (lower.startsWith("urn:")) {
      const urn = urnsByLength.find((candidate) => lower.startsWith(`${candidate}:`));
      const schema = urn === undefined ? undefined : schemasByUrn.get(urn);
      if (urn === undefined || !schema) return { ok: false, reason: `"${raw}" does not start with a schema URN of ${resourceType.name}` };
      return bind(schema, text.slice(urn.length + 1), raw);
    }
    const inCore = bind(core, text, raw);
    if (inCore.ok) return inCore;
    const name = text.split(".")[0] ?? "";
    const owners = extensions.filter((extension) => findAttribute(extension.schema, name) !== undefined);
    const owner = owners[0];
    return owners.length === 1 && owner ? bind(owner.schema, text, raw) : inCore;
  };

  return {
    resourceType,
    core,
    extensions,
    coreAttributes,
    findSchema: (urn) => schemasByUrn.get(urn.toLowerCase()),
    findAttribute,
    resolvePath,
  };
}

/**
 * Builds a registry. By default it holds the core User (with the enterprise extension) and Group
 * resource types of RFC 7643 §4 and §8.6; integrators add their own schemas, extensions and resource
 * types through the options.
 */
export function createSchemaRegistry(options: SchemaRegistryOptions = {}): SchemaRegistry {
  const builtIn = options.withoutCoreSchemas ? [] : [coreUserSchema, coreGroupSchema, enterpriseUserSchema];
  const schemas = [...builtIn, ...(options.schemas ?? [])];
  const schemaByUrn = new Map<string, SchemaDefinition>();
  for (const schema of schemas) {
    const key = schema.id.toLowerCase();
    if (schemaByUrn.has(key)) throw new Error(`Schema ${schema.id} is registered twice`);
    schemaByUrn.set(key, schema);
  }
  const schemaOf = (urn: string) => schemaByUrn.get(urn.toLowerCase());

  const extraExtensions = options.extensions ?? [];
  const resourceTypes = [
    ...(options.withoutCoreSchemas ? [] : [userResourceType, groupResourceType]),
    ...(options.resourceTypes ?? []),
  ].map((resourceType): ResourceTypeDefinition => {
    const added = extraExtensions
      .filter((extension) => extension.resourceType.toLowerCase() === resourceType.id.toLowerCase())
      .map(({ schema, required }) => ({ schema, required }));
    return added.length === 0 ? resourceType : { ...resourceType, schemaExtensions: [...resourceType.schemaExtensions, ...added] };
  });
  for (const extension of extraExtensions) {
    if (!resourceTypes.some((type) => type.id.toLowerCase() === extension.resourceType.toLowerCase())) {
      throw new Error(`Extension ${extension.schema}: resource type ${extension.resourceType} is not registered`);
    }
  }

  const aliases = new Map(
    Object.entries({ ...defaultPathAliases, ...options.pathAliases }).map(([alias, path]) => [alias.toLowerCase(), path]),
  );
  const byId = new Map<string, ResourceSchema>();
  for (const resourceType of resourceTypes) {
    const key = resourceType.id.toLowerCase();
    if (byId.has(key)) throw new Error(`Resource type ${resourceType.id} is registered twice`);
    const extensions = resourceType.schemaExtensions.map((reference) => {
      const schema = schemaOf(reference.schema);
      if (!schema) throw new Error(`Resource type ${resourceType.id}: extension ${reference.schema} is not registered`);
      return { schema, required: reference.required };
    });
    byId.set(key, createResourceSchema(resourceType, extensions, schemaOf, aliases));
  }

  return {
    schemas,
    resourceTypes,
    schema: schemaOf,
    resourceType: (id) => byId.get(id.toLowerCase()),
  };
}
