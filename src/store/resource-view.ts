/**
 * The JSON a filter, a sort and the response renderer see for a stored resource: its attributes
 * with `id`, `members` and `meta` put back (RFC 7643 §3.1). One view, so a store's filter and
 * the HTTP response never disagree about what a resource holds.
 */
import type { ScimObject } from "../scim/schema/normalize-value.js";
import type { StoredResource } from "./resource-store.js";

/** The weak entity tag of a version (RFC 7644 §3.14), as `meta.version` and `ETag` carry it. */
export function entityTag(version: string): string {
  return `W/"${version}"`;
}

/** `resource` as SCIM JSON without `schemas` or `meta.location`, which depend on the request. */
export function resourceView(resourceType: string, resource: StoredResource): ScimObject {
  return {
    ...resource.attributes,
    id: resource.id,
    ...(resource.members ? { members: resource.members.map((member) => ({ value: member.value, type: member.type })) } : {}),
    meta: {
      resourceType,
      created: resource.created,
      lastModified: resource.lastModified,
      version: entityTag(resource.version),
    },
  };
}
