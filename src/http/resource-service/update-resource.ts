/**
 * A read-modify-write of one resource (architecture §4b): after this process's earlier writes to
 * it, again when another process wrote in between, with its events delivered once the lock is
 * released. PUT, PATCH and a POST that links an existing user all write through here; a PATCH of
 * members alone needs no read and writes through `writeUpdate` only (patch-membership.ts).
 */
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { isEmptyMembershipDelta, type MembershipDelta } from "../../scim/patch/membership-delta.js";
import type { MembershipChange, ReadSnapshot, StoredResource, UniqueKey, UpdateRequest, WriteResult } from "../../store/resource-store.js";
import { uniqueKeysOf } from "../../store/unique-keys.js";
import type { ScimEvent } from "../lifecycle-events/scim-event.js";
import { appendAndDeliver, writeEvents } from "../lifecycle-events/write-events.js";
import { checkIfMatch, notFound, outcomeOf, readResource } from "./read-resource.js";
import { resourceEvents } from "./resource-events.js";
import type { ResourceOutcome, ServiceContext } from "./resource-service.js";
import type { ResourceServiceState } from "./resource-service-state.js";
import { retryVersionConflicts } from "./retry-version-conflicts.js";
import type { TypeHandler } from "./type-handler.js";

/** What an update writes, computed from the resource as stored. */
export interface UpdatePlan {
  /** The new attributes, canonical and without the server's own. */
  readonly attributes: ScimObject;
  /** Whether they differ from the stored ones: decided once, by whoever computed them. */
  readonly attributesChanged: boolean;
  /** The change to the members, for a type with members. */
  readonly membership: MembershipDelta | undefined;
}

/** The events of an update: `updated` by default, `linked` for a POST that linked (called even when nothing changed). */
export type UpdateEvents = (
  before: ScimObject,
  after: StoredResource,
  attributesChanged: boolean,
  membership: MembershipChange | undefined,
) => ScimEvent[];

/**
 * Runs `work` after this process's earlier writes to the resource. Keyed by organization, type and
 * id: the same id in two organizations is two resources. Not a locked read in the store contract
 * (SELECT … FOR UPDATE): every adapter would have to run the core's PATCH inside its own
 * transaction, holding a connection through validation, which a store whose statements run in a
 * worker thread cannot; the version check already makes a race between processes safe, and only
 * needs retrying.
 */
export function serialized<T>(
  state: ResourceServiceState,
  context: ServiceContext,
  type: TypeHandler,
  id: string,
  work: () => Promise<T>,
): Promise<T> {
  // The organization's length first, so no two (organization, type, id) give one key; cheaper than JSON.
  return state.writing.run(`${context.orgId.length}:${context.orgId}\n${type.id}\n${id}`, work);
}

/**
 * Runs a read-modify-write of one resource after this process's earlier writes to it, and again
 * when another process wrote in between. With the client's `If-Match`, a conflict is its 412.
 */
function readModifyWrite<T>(
  state: ResourceServiceState,
  context: ServiceContext,
  type: TypeHandler,
  id: string,
  ifMatch: string | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  return serialized(state, context, type, id, () => (ifMatch === undefined ? retryVersionConflicts(attempt) : attempt()));
}

/** A write done: the resource as stored, and its events, to deliver once any lock is released. */
export interface WrittenUpdate {
  readonly stored: StoredResource;
  deliver(): Promise<void>;
}

/** What one update changes; the rest of the store's request is the same for every write. */
export type UpdateChange = Pick<UpdateRequest, "expectedVersion" | "attributes" | "uniqueKeys" | "read" | "membership">;

/**
 * `store.update` of `change` with the write's events: recorded in its transaction by a store with
 * an outbox (`writeEvents`), delivered by `deliver`; a resource that is not there is the client's 404.
 */
export async function writeUpdate(
  state: ResourceServiceState,
  context: ServiceContext,
  type: TypeHandler,
  id: string,
  members: boolean,
  change: UpdateChange,
  eventsOf: (result: WriteResult) => readonly ScimEvent[],
): Promise<WrittenUpdate> {
  const written = writeEvents(state.delivery, eventsOf);
  const result = await state.store.update({
    orgId: context.orgId,
    resourceType: type.id,
    id,
    now: new Date().toISOString(),
    ...change,
    unknownMembers: state.config.unknownMembers,
    members: members && type.hasMembers,
    ...(written.recording ? { events: written.recording } : {}),
  });
  if (!result) throw notFound(type, id);
  return {
    stored: result.resource,
    deliver() {
      return written.deliver(result);
    },
  };
}

/**
 * What the write was computed from. Its unique keys are derived when a store asks for them: the
 * memory store and the table store never do, and a PUT or PATCH should not pay for them there.
 */
function readSnapshot(type: TypeHandler, current: StoredResource): ReadSnapshot {
  let uniqueKeys: readonly UniqueKey[] | undefined;
  return {
    version: current.version,
    created: current.created,
    attributes: current.attributes,
    get uniqueKeys() {
      uniqueKeys ??= uniqueKeysOf(type.schema, current.attributes);
      return uniqueKeys;
    },
  };
}

/** Writes new attributes and/or a membership delta computed from the current resource. */
export async function updateResource(
  state: ResourceServiceState,
  context: ServiceContext,
  type: TypeHandler,
  id: string,
  ifMatch: string | undefined,
  members: boolean,
  plan: (current: StoredResource) => Promise<UpdatePlan>,
  eventsOf: UpdateEvents = resourceEvents(state.registry, type, context).updated,
): Promise<ResourceOutcome> {
  const { delivery } = state;
  const { stored, deliver } = await readModifyWrite(
    state,
    context,
    type,
    id,
    ifMatch,
    async (): Promise<{ stored: StoredResource; deliver: () => Promise<void> }> => {
      const current = await readResource(state, context, type, id, false);
      checkIfMatch(ifMatch, current);
      const { attributes, attributesChanged, membership } = await plan(current);
      const membershipChanges = membership !== undefined && !isEmptyMembershipDelta(membership);
      if (!attributesChanged && !membershipChanges) {
        const unchanged = members && type.hasMembers ? await readResource(state, context, type, id, true) : current;
        const events = eventsOf(current.attributes, current, false, undefined);
        return {
          stored: unchanged,
          deliver() {
            return appendAndDeliver(delivery, context.orgId, events);
          },
        };
      }
      return writeUpdate(
        state,
        context,
        type,
        id,
        members,
        {
          // Membership deltas commute, so they need no version (patch-membership.ts writes them
          // without a read); attribute writes do, or a concurrent change between our read and this
          // write would be silently undone.
          ...(attributesChanged || ifMatch !== undefined ? { expectedVersion: current.version } : {}),
          // With what the write was computed from (`read`): a store may write at that version without reading the row.
          ...(attributesChanged
            ? {
                attributes,
                uniqueKeys: uniqueKeysOf(type.schema, attributes),
                read: readSnapshot(type, current),
              }
            : {}),
          ...(membershipChanges ? { membership } : {}),
        },
        (result: WriteResult) => eventsOf(current.attributes, result.resource, attributesChanged, result.membership),
      );
    },
  );
  // After the lock: a slow listener, or a response of 100,000 members, delays only its own
  // request, not the next write to the resource.
  await deliver();
  return outcomeOf(state, context, type, stored);
}
