/**
 * A stored resource as the client sees it (RFC 7643 §3.1): `schemas` derived from what it
 * carries, `id` first, member references and an absolute `meta.location`.
 */
import { mapInSlices, type EventLoopSlice } from "../../event-loop-slice.js";
import type { ResponseChoices } from "../../scim/compatibility/compatibility-profile.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { schemasFor } from "../../scim/schema/normalize-resource.js";
import type { ResourceSchema, SchemaRegistry } from "../../scim/schema/schema-registry.js";
import { resourceView } from "../../store/resource-view.js";
import type { StoredMember, StoredResource } from "../../store/resource-store.js";

// With the `u` flag a surrogate pair is one code point: only a lone surrogate is in \p{Cs}.
const LONE_SURROGATE = /\p{Cs}/gu;

/** The absolute URL of a resource: base URL, resource type endpoint, id. */
export function resourceLocation(baseUrl: string, endpoint: string, id: string): string {
  // A lone surrogate has no UTF-8 form (RFC 3629 §3), so encodeURIComponent throws on it; such an
  // id names nothing stored (is-possible-id.ts), and U+FFFD keeps the URL of a refusal renderable.
  const encoded = encodeURIComponent(id.replace(LONE_SURROGATE, "\ufffd")).replace(/%3A/gi, ":");
  // ":" stays readable: schema URNs are ids (RFC 7644 §4 shows /Schemas/urn:…:User).
  return `${baseUrl}${endpoint.startsWith("/") ? endpoint : `/${endpoint}`}/${encoded}`;
}

/** One member as the client sees it: the view's `value` and `type`, and its `$ref` when its type is known. */
function renderMember(registry: SchemaRegistry, baseUrl: string, member: Pick<StoredMember, "value" | "type">): ScimObject {
  const rendered: ScimObject = { value: member.value, type: member.type };
  // RFC 7643 §4.2: `$ref` is the member's URI, so a client can follow it without knowing our routes.
  const endpoint = registry.resourceType(member.type)?.resourceType.endpoint;
  if (endpoint) rendered["$ref"] = resourceLocation(baseUrl, endpoint, member.value);
  return rendered;
}

/**
 * Renders `resource` of the type `schema` for a response under `baseUrl`. A member list with no
 * member is left out unless `emptyMultiValued` is `"keep"` (RFC 7643 §2.5: `[]` and absence are
 * the same; the compatibility profile's choice).
 */
export function renderResource(
  registry: SchemaRegistry,
  schema: ResourceSchema,
  baseUrl: string,
  resource: StoredResource,
  emptyMultiValued: ResponseChoices["emptyMultiValued"] = "omit",
): ScimObject {
  const { id, meta, members, schemas: _stored, ...attributes } = resourceView(schema.resourceType.id, resource);
  if (Array.isArray(members) && (members.length > 0 || emptyMultiValued === "keep")) {
    attributes["members"] = (members as StoredMember[]).map((member) => renderMember(registry, baseUrl, member));
  }
  return {
    schemas: schemasFor(schema, attributes),
    id,
    ...attributes,
    meta: { ...(meta as ScimObject), location: resourceLocation(baseUrl, schema.resourceType.endpoint, resource.id) },
  };
}

/**
 * `renderResource` for a resource that may carry a group's every member (architecture §4b): the members,
 * up to `maxMembers` of them, are rendered in slices of the event loop. The object is the same,
 * key for key and in the same order: `members` after the other attributes, before `meta`.
 */
export async function renderResourceInSlices(
  registry: SchemaRegistry,
  schema: ResourceSchema,
  baseUrl: string,
  resource: StoredResource,
  slice?: EventLoopSlice,
  emptyMultiValued: ResponseChoices["emptyMultiValued"] = "omit",
): Promise<ScimObject> {
  const { members, ...withoutMembers } = resource;
  if (members === undefined || members.length === 0) return renderResource(registry, schema, baseUrl, resource, emptyMultiValued);
  const { meta, ...head } = renderResource(registry, schema, baseUrl, withoutMembers);
  const rendered = await mapInSlices(members, (member) => renderMember(registry, baseUrl, member), slice);
  return { ...head, members: rendered, meta };
}
