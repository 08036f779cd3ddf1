/**
 * Creating a resource (RFC 7644 §3.3): a new one under a new id, or — for a POST of a user that
 * exists under `existingUsers: "link"` — that user updated as by a PUT (link-existing-user.ts).
 */
import { deepEqual } from "../../scim/deep-equal.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { StoredResource, WriteResult } from "../../store/resource-store.js";
import { uniqueKeysOf } from "../../store/unique-keys.js";
import { uuidV7 } from "../../uuid-v7.js";
import { writeEvents } from "../lifecycle-events/write-events.js";
import { createOrLink, findUserToLink, linkLockKeys } from "./link-existing-user.js";
import { outcomeOf } from "./read-resource.js";
import { resourceEvents } from "./resource-events.js";
import type { ResourceOutcome, ServiceContext } from "./resource-service.js";
import type { ResourceServiceState } from "./resource-service-state.js";
import type { TypeHandler } from "./type-handler.js";
import { updateResource } from "./update-resource.js";

function withMembersOrNot(stored: StoredResource, members: boolean): StoredResource {
  if (members || stored.members === undefined) return stored;
  const { members: _members, ...rest } = stored;
  return rest;
}

/** Stores a new resource of `attributes` (and, for a type with members, `memberIds`) under a new id. */
export async function createResource(
  state: ResourceServiceState,
  context: ServiceContext,
  type: TypeHandler,
  attributes: ScimObject,
  memberIds: readonly string[] | undefined,
  members: boolean,
): Promise<ResourceOutcome> {
  const written = writeEvents(state.delivery, (created: WriteResult) =>
    resourceEvents(state.registry, type, context).created(created.resource, created.membership),
  );
  const result = await state.store.create({
    orgId: context.orgId,
    resourceType: type.id,
    id: uuidV7(),
    now: new Date().toISOString(),
    attributes,
    uniqueKeys: uniqueKeysOf(type.schema, attributes),
    // Present exactly for a type with members, `[]` for none: how the store knows (CreateRequest).
    ...(memberIds ? { members: memberIds } : {}),
    unknownMembers: state.config.unknownMembers,
    ...(written.recording ? { events: written.recording } : {}),
  });
  await written.deliver(result);
  return outcomeOf(state, context, type, withMembersOrNot(result.resource, members));
}

/** Runs `work` holding each of `keys` of the linking locks in turn. */
function lockedInTurn<T>(state: ResourceServiceState, keys: readonly string[], work: () => Promise<T>): Promise<T> {
  const [first, ...rest] = keys;
  return first === undefined ? work() : state.linking.run(first, () => lockedInTurn(state, rest, work));
}

/** A POST under `existingUsers: "link"`: the existing user updated as by a PUT, or a new one. */
export function createOrLinkUser(
  state: ResourceServiceState,
  context: ServiceContext,
  type: TypeHandler,
  attributes: ScimObject,
  ifMatch: string | undefined,
  members: boolean,
): Promise<ResourceOutcome> {
  // POSTs that may link to the same user wait for each other in this process (link-existing-user.ts).
  return lockedInTurn(state, linkLockKeys(type, context.orgId, attributes), () =>
    createOrLink({
      find: () => findUserToLink(state.store, type, context.orgId, attributes),
      // Only users link, and a user has no member list.
      create: () => createResource(state, context, type, attributes, undefined, members),
      // RFC 7644 §3.5.1: a POST carries the whole resource, so it replaces as a PUT does.
      link: async (existing) => {
        const outcome = await updateResource(
          state,
          context,
          type,
          existing.id,
          ifMatch,
          members,
          async (current) => ({ attributes, attributesChanged: !deepEqual(current.attributes, attributes), membership: undefined }),
          resourceEvents(state.registry, type, context).linked,
        );
        return { ...outcome, linked: true };
      },
    }),
  );
}
