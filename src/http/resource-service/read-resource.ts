/**
 * Reading one resource for the service: its id checked before any store call, a miss as the
 * client's 404, its version against `If-Match`, and the stored resource rendered for the response.
 */
import { scimError, type ScimError } from "../../errors.js";
import { isPossibleId } from "../../is-possible-id.js";
import type { StoredResource } from "../../store/resource-store.js";
import { matchesEntityTag } from "./entity-tags.js";
import { renderResourceInSlices } from "./render-resource.js";
import { type ResourceOutcome, type ServiceContext, compatibilityOf } from "./resource-service.js";
import type { ResourceServiceState } from "./resource-service-state.js";
import type { TypeHandler } from "./type-handler.js";

/** The 404 of a resource the organization does not have (RFC 7644 §3.12). */
export function notFound(type: TypeHandler, id: string): ScimError {
  return scimError("notFound", `${type.schema.resourceType.name} ${JSON.stringify(id)} not found.`);
}

/** The resource `id` of the context's organization, or its 404. */
export async function readResource(
  state: ResourceServiceState,
  context: ServiceContext,
  type: TypeHandler,
  id: string,
  members: boolean,
): Promise<StoredResource> {
  // Every write reads first, so this keeps such ids from every store call of the service.
  if (!isPossibleId(id)) throw notFound(type, id);
  const stored = await state.store.get({ orgId: context.orgId, resourceType: type.id, id, members });
  if (!stored) throw notFound(type, id);
  return stored;
}

/** Throws the 412 of a stale `If-Match`. */
export function checkIfMatch(ifMatch: string | undefined, stored: StoredResource): void {
  // RFC 7644 §3.14 with RFC 7232 §3.1: a stale version is 412, and nothing is written.
  if (ifMatch !== undefined && !matchesEntityTag(ifMatch, stored.version)) {
    throw scimError(
      "preconditionFailed",
      `The resource has changed: its version is W/"${stored.version}", not ${ifMatch}. Read it again and retry.`,
    );
  }
}

/** `stored` with the resource the response renders. */
export async function outcomeOf(
  state: ResourceServiceState,
  context: ServiceContext,
  type: TypeHandler,
  stored: StoredResource,
): Promise<ResourceOutcome> {
  // A group's every member can be 100,000 of them (`writeLimits.maxMembers`): rendered in slices.
  return {
    stored,
    resource: await renderResourceInSlices(
      state.registry,
      type.schema,
      context.baseUrl,
      stored,
      undefined,
      compatibilityOf(context).responses.emptyMultiValued,
    ),
  };
}
