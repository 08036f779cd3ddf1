/**
 * The resource service of one router configuration (`ResourceService`): validate, read-modify-write
 * against the store with optimistic concurrency, and deliver lifecycle events after the store has
 * committed. Its state is built once (`resourceServiceState`); reads, creates and updates are
 * functions of it in their own files.
 */
import { driveInSlices } from "../../event-loop-slice.js";
import { ok, unwrap } from "../../result.js";
import { deepEqual } from "../../scim/deep-equal.js";
import { applyPatchStepwise } from "../../scim/patch/apply-patch.js";
import { replaceMembers } from "../../scim/patch/membership-delta.js";
import { writeEvents } from "../lifecycle-events/write-events.js";
import { listResourcesPage } from "../search/list-resources-page.js";
import { createOrLinkUser, createResource } from "./create-resource.js";
import { existingUserPolicy } from "./link-existing-user.js";
import { patchMembership } from "./patch-membership.js";
import { checkPatchBounds, prepareWrite, withoutServerAttributes, withoutWriteOnly } from "./prepare-write.js";
import { checkIfMatch, notFound, outcomeOf, readResource } from "./read-resource.js";
import { resourceEvents } from "./resource-events.js";
import { type ResourceService, compatibilityOf } from "./resource-service.js";
import type { ResourceServiceConfig } from "./resource-service-config.js";
import { resourceServiceState } from "./resource-service-state.js";
import type { TypeHandler } from "./type-handler.js";
import { serialized, updateResource } from "./update-resource.js";

/** Builds the service for one router configuration. */
export function createResourceService(config: ResourceServiceConfig): ResourceService {
  const { store, registry } = config;
  const state = resourceServiceState(config);
  const canSort = store.capabilities?.sort !== false;
  const canCursor = store.capabilities?.cursor !== false;
  const listConfig = { ...config, canSort, canCursor };

  const handler = (typeId: string): TypeHandler => {
    const found = state.handlers.get(typeId);
    if (!found) throw new Error(`Unknown resource type ${typeId}`);
    return found;
  };

  return {
    handlers: state.handlers,
    canSort,
    canCursor,

    async create({ context, resourceType, body, ifMatch, members }) {
      const type = handler(resourceType);
      const { attributes, memberIds } = prepareWrite(type, body, config.writeLimits, compatibilityOf(context).tolerances);
      if (existingUserPolicy(type, context) === "link") {
        return createOrLinkUser(state, context, type, attributes, ifMatch, members);
      }
      return createResource(state, context, type, attributes, memberIds, members);
    },

    async get({ context, resourceType, id, members }) {
      const type = handler(resourceType);
      return outcomeOf(state, context, type, await readResource(state, context, type, id, members && type.hasMembers));
    },

    async replace({ context, resourceType, id, body, ifMatch, members }) {
      const type = handler(resourceType);
      // RFC 7644 §3.5.1: PUT replaces every attribute the client may write; members are replaced too.
      const { attributes, memberIds } = prepareWrite(type, body, config.writeLimits, compatibilityOf(context).tolerances);
      return updateResource(
        state,
        context,
        type,
        id,
        ifMatch,
        members,
        async (current) => ({
          attributes,
          attributesChanged: !deepEqual(current.attributes, attributes),
          membership: memberIds ? replaceMembers(memberIds) : undefined,
        }),
        resourceEvents(registry, type, context, "PUT").updated,
      );
    },

    async patch({ context, resourceType, id, body, ifMatch, members }) {
      const type = handler(resourceType);
      const { maxPatchOperations, maxValues, maxMembers } = config.writeLimits;
      const { tolerances } = compatibilityOf(context);
      // The bounds the request's shape alone decides, before the resource is read or locked
      // (architecture §4b: a bound is checked before the work it bounds).
      const operations = checkPatchBounds(type, body, config.writeLimits, tolerances);
      // Members added or removed one by one, many at once (issue 29): written as a delta, without
      // the read and the lock. The client's `If-Match` needs the read, so it goes the general way.
      if (ifMatch === undefined && type.hasMembers) {
        const written = await patchMembership(
          state,
          context,
          type,
          id,
          operations,
          { filterLimits: config.filterLimits, maxMembers, tolerances },
          members,
        );
        if (written) return written;
      }
      return updateResource(state, context, type, id, ifMatch, members, async (current) => {
        // Groups are patched without loading their members: member operations become a delta. The
        // engine pauses after each step, and a long request lets the event loop turn (architecture §4b).
        const steps = applyPatchStepwise(type.schema, { ...current.attributes, id: current.id }, body, {
          membersLoaded: !type.hasMembers,
          filterLimits: config.filterLimits,
          maxPatchOperations,
          maxValues,
          maxMembers,
          tolerances,
          // The engine compares what will be stored, so its flag is the one answer to "did the
          // attributes change?" (pruned by the profile, without writeOnly values).
          conform: (patched) => {
            const conformed = type.validator.conform(patched);
            return conformed.ok ? ok(withoutWriteOnly(type.schema, conformed.value)) : conformed;
          },
        });
        const patched = unwrap(await driveInSlices(steps));
        return {
          attributes: withoutServerAttributes(patched.resource),
          attributesChanged: patched.attributesChanged,
          membership: patched.membership,
        };
      });
    },

    async delete({ context, resourceType, id, ifMatch }) {
      const type = handler(resourceType);
      // Serialized too, so the "deleted" event carries the last version, not one a concurrent write replaced.
      const written = await serialized(state, context, type, id, async () => {
        const found = await readResource(state, context, type, id, false);
        checkIfMatch(ifMatch, found);
        const events = writeEvents(state.delivery, (_deleted: true) => resourceEvents(registry, type, context).deleted(found));
        const deleted = await store.delete({
          orgId: context.orgId,
          resourceType: type.id,
          id,
          now: new Date().toISOString(),
          ...(ifMatch === undefined ? {} : { expectedVersion: found.version }),
          ...(events.recording ? { events: events.recording } : {}),
        });
        if (!deleted) throw notFound(type, id);
        return events;
      });
      await written.deliver(true);
    },

    list(request) {
      return listResourcesPage(listConfig, handler(request.resourceType), request);
    },
  };
}
