/**
 * The discovery documents of RFC 7644 §4 — `/ServiceProviderConfig`, `/Schemas`, `/ResourceTypes`
 * — generated from the registry, the profile and the store's capabilities, so they advertise
 * exactly what this service does and are never written by hand a second time.
 */
import type { AttributeDefinition, SchemaDefinition } from "../../scim/schema/attribute-definition.js";
import { selectAttributes, type AttributeSelection } from "../../scim/schema/attribute-selection.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { ResourceProfile } from "../../scim/schema/resource-profile.js";
import type { ResourceSchema, SchemaRegistry } from "../../scim/schema/schema-registry.js";
import { resourceLocation } from "../resource-service/render-resource.js";

export const SERVICE_PROVIDER_CONFIG_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
export const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";
export const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";

/** What the service supports, for `/ServiceProviderConfig`. */
export interface ServiceFeatures {
  readonly documentationUri?: string;
  readonly bulk: { readonly maxOperations: number; readonly maxPayloadSize: number };
  readonly maxPageSize: number;
  readonly defaultPageSize: number;
  readonly sort: boolean;
  readonly cursor: boolean;
  /** The RFC 9967 event URIs this service sends, for the `securityEvents` block; absent to advertise none. */
  readonly securityEventUris?: readonly string[];
}

/**
 * RFC 7643 §5, with the `pagination` block of RFC 9865 §4 unless `advertisePagination` is false
 * (the compatibility profile's choice: some client libraries refuse a member RFC 7643 does not define).
 */
export function serviceProviderConfig(features: ServiceFeatures, baseUrl: string, advertisePagination = true): ScimObject {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    ...(features.documentationUri ? { documentationUri: features.documentationUri } : {}),
    patch: { supported: true },
    bulk: { supported: true, maxOperations: features.bulk.maxOperations, maxPayloadSize: features.bulk.maxPayloadSize },
    filter: { supported: true, maxResults: features.maxPageSize },
    changePassword: { supported: false },
    sort: { supported: features.sort },
    etag: { supported: true },
    ...(advertisePagination
      ? {
          pagination: {
            cursor: features.cursor,
            index: true,
            defaultPaginationMethod: "index",
            defaultPageSize: features.defaultPageSize,
            maxPageSize: features.maxPageSize,
          },
        }
      : {}),
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "OAuth Bearer Token",
        description: "A bearer token issued for the organization, sent as Authorization: Bearer <token>.",
        specUri: "https://www.rfc-editor.org/info/rfc6750",
        primary: true,
      },
    ],
    // RFC 9967 §4: `securityEvents` has exactly two sub-attributes, `eventUris` (the URIs we can send)
    // and `asyncRequest` — `"none"`: scimkit runs no request asynchronously (no `Prefer: respond-async`, §2.5.1.1).
    ...(features.securityEventUris ? { securityEvents: { eventUris: [...features.securityEventUris], asyncRequest: "none" } } : {}),
    meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
  };
}

/** RFC 7643 §6 for one resource type. */
export function resourceTypeDocument(schema: ResourceSchema, baseUrl: string): ScimObject {
  const type = schema.resourceType;
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: type.id,
    name: type.name,
    endpoint: type.endpoint,
    description: type.description,
    schema: type.schema,
    schemaExtensions: type.schemaExtensions.map((extension) => ({ schema: extension.schema, required: extension.required })),
    meta: { resourceType: "ResourceType", location: resourceLocation(baseUrl, "/ResourceTypes", type.id) },
  };
}

/** Every resource type's document, in registration order. */
export function resourceTypeDocuments(registry: SchemaRegistry, baseUrl: string): ScimObject[] {
  return registry.resourceTypes.flatMap((type) => {
    const schema = registry.resourceType(type.id);
    return schema ? [resourceTypeDocument(schema, baseUrl)] : [];
  });
}

function renderAttribute(
  attribute: AttributeDefinition,
  subAttributes?: readonly AttributeDefinition[],
  required?: boolean,
  note?: string,
): ScimObject {
  const { subAttributes: _subs, ...characteristics } = attribute;
  return {
    ...characteristics,
    ...(required ? { required: true } : {}),
    ...(note ? { description: `${attribute.description} ${note}`.trim() } : {}),
    ...(attribute.type === "complex" ? { subAttributes: (subAttributes ?? []).map((sub) => renderAttribute(sub)) } : {}),
  };
}

/** How a profile shapes one schema of a resource type: what is kept and what is required. */
interface ProfileView {
  readonly kept: AttributeSelection | undefined;
  /** Lower-cased `attribute` or `attribute.sub` names the profile requires. */
  readonly required: ReadonlySet<string>;
  /** Attributes that must hold an element matching a filter, with the profile's path as a note. */
  readonly requiredElements: ReadonlyMap<string, string>;
}

function profileView(schema: ResourceSchema, profile: ResourceProfile, schemaId: string): ProfileView {
  const typeId = schema.resourceType.id;
  const keptPaths = profile.synchronized?.[typeId];
  const required = new Set<string>();
  const requiredElements = new Map<string, string>();
  for (const path of profile.required?.[typeId] ?? []) {
    const bracket = path.indexOf("[");
    const resolved = schema.resolvePath(bracket === -1 ? path : path.slice(0, bracket));
    if (!resolved.ok || resolved.path.schema !== schemaId) continue;
    const name = resolved.path.attribute.name.toLowerCase();
    if (bracket !== -1) requiredElements.set(name, path);
    else required.add(resolved.path.subAttribute ? `${name}.${resolved.path.subAttribute.name.toLowerCase()}` : name);
  }
  return { kept: keptPaths ? selectAttributes(schema, keptPaths) : undefined, required, requiredElements };
}

/** RFC 7643 §7 for one schema, showing only what the profile keeps and marking what it requires. */
export function schemaDocument(definition: SchemaDefinition, view: ProfileView | undefined, baseUrl: string): ScimObject {
  const attributes = definition.attributes.flatMap((attribute) => {
    const coverage = view?.kept ? view.kept.coverage(definition.id, attribute.name) : "all";
    if (coverage === undefined) return [];
    const name = attribute.name.toLowerCase();
    const subs = (attribute.subAttributes ?? [])
      .filter((sub) => coverage === "all" || coverage.has(sub.name.toLowerCase()))
      .map((sub) => (view?.required.has(`${name}.${sub.name.toLowerCase()}`) ? { ...sub, required: true } : sub));
    const elementRule = view?.requiredElements.get(name);
    // A required sub-attribute makes its parent required too: without the parent it is missing.
    const requiredSub = [...(view?.required ?? [])].some((key) => key.startsWith(`${name}.`));
    return [
      renderAttribute(
        attribute,
        subs,
        view?.required.has(name) || requiredSub || elementRule !== undefined,
        elementRule ? `Required here: ${elementRule}.` : undefined,
      ),
    ];
  });
  return {
    schemas: [SCHEMA_SCHEMA],
    id: definition.id,
    name: definition.name,
    description: definition.description,
    attributes,
    meta: { resourceType: "Schema", location: resourceLocation(baseUrl, "/Schemas", definition.id) },
  };
}

/** Every schema the resource types use, each shaped by the profile of the first type using it. */
export function schemaDocuments(registry: SchemaRegistry, profile: ResourceProfile, baseUrl: string): ScimObject[] {
  const documents: ScimObject[] = [];
  const seen = new Set<string>();
  for (const type of registry.resourceTypes) {
    const schema = registry.resourceType(type.id);
    if (!schema) continue;
    for (const definition of [schema.core, ...schema.extensions.map((extension) => extension.schema)]) {
      if (seen.has(definition.id)) continue;
      seen.add(definition.id);
      documents.push(schemaDocument(definition, profileView(schema, profile, definition.id), baseUrl));
    }
  }
  return documents;
}
