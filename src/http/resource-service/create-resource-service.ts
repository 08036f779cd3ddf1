/**
 * The resource service of one router configuration (`ResourceService`): validate, read-modify-write
 * against the store with optimistic concurrency, and deliver lifecycle events after the store has
 * committed.
 */
import { uuidV7 } from "../../uuid-v7.js";
import { scimError, type ScimError } from "../../errors.js";
import { driveInSlices } from "../../event-loop-slice.js";
import { ok, unwrap } from "../../result.js";
import { deepEqual } from "../../scim/deep-equal.js";
import type { FilterLimits } from "../../scim/filter/parse-filter.js";
import { applyPatchStepwise } from "../../scim/patch/apply-patch.js";
import { isEmptyMembershipDelta, replaceMembers, type MembershipDelta } from "../../scim/patch/membership-delta.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { ResourceProfile } from "../../scim/schema/resource-profile.js";
import type { SchemaRegistry } from "../../scim/schema/schema-registry.js";
import type { MembershipChange, ResourceStore, StoredResource, UnknownMemberPolicy, WriteResult } from "../../store/resource-store.js";
import { uniqueKeysOf } from "../../store/unique-keys.js";
import { matchesEntityTag } from "./entity-tags.js";
import { isPossibleId } from "../../is-possible-id.js";
import { keyedMutex } from "./keyed-mutex.js";
import { createOrLink, existingUserPolicy, findUserToLink, linkLockKeys } from "./link-existing-user.js";
import { listResourcesPage } from "../search/list-resources-page.js";
import { checkPatchBounds, prepareWrite, withoutServerAttributes, withoutWriteOnly } from "./prepare-write.js";
import { renderResourceInSlices } from "./render-resource.js";
import { deliveredMarks } from "../lifecycle-events/delivered-marks.js";
import { resourceEvents } from "./resource-events.js";
import { type ResourceOutcome, type ResourceService, type ServiceContext, compatibilityOf } from "./resource-service.js";
import { retryVersionConflicts } from "./retry-version-conflicts.js";
import type { ScimEvent } from "../lifecycle-events/scim-event.js";
import { createTypeHandler, type TypeHandler } from "./type-handler.js";
import { appendAndDeliver, writeEvents, type EventDelivery } from "../lifecycle-events/write-events.js";
import type { WriteLimits } from "./write-limits.js";

/** What the service is built from: the router's store, registry and options. */
export interface ResourceServiceConfig {
  readonly store: ResourceStore;
  readonly registry: SchemaRegistry;
  readonly profile: ResourceProfile;
  readonly unknownMembers: UnknownMemberPolicy;
  readonly filterLimits: Partial<FilterLimits>;
  /** Bounds on what one write may carry; see `ScimRouterOptions.writeLimits`. */
  readonly writeLimits: WriteLimits;
  readonly defaultPageSize: number;
  readonly maxPageSize: number;
  /** Key of the MAC that seals cursors (RFC 9865); see `ScimRouterOptions.cursorSecret`. */
  readonly cursorSecret: string;
  /** Delivers an event; never throws (the router reports listener failures itself). */
  readonly emit: (event: ScimEvent) => Promise<void>;
  /**
   * How events go through the store's outbox (`ResourceStore.events`), when it has one. Default:
   * a listener is assumed, a lease of 60 seconds, failures to mark delivery thrown away.
   */
  readonly events?: Partial<Pick<EventDelivery, "listening" | "leaseMs" | "onError">> & {
    /** Whether writes record their events in the store's outbox. Default true when the store has one. */
    readonly durable?: boolean;
  };
}

/** What an update writes, computed from the resource as stored. */
interface UpdatePlan {
  /** The new attributes, canonical and without the server's own. */
  readonly attributes: ScimObject;
  /** Whether they differ from the stored ones: decided once, by whoever computed them. */
  readonly attributesChanged: boolean;
  /** The change to the members, for a type with members. */
  readonly membership: MembershipDelta | undefined;
}

/** The events of an update: `updated` by default, `linked` for a POST that linked (called even when nothing changed). */
type UpdateEvents = (
  before: ScimObject,
  after: StoredResource,
  attributesChanged: boolean,
  membership: MembershipChange | undefined,
) => ScimEvent[];

function notFound(type: TypeHandler, id: string): ScimError {
  return scimError("notFound", `${type.schema.resourceType.name} ${JSON.stringify(id)} not found.`);
}

function now(): string {
  return new Date().toISOString();
}

function withMembersOrNot(stored: StoredResource, members: boolean): StoredResource {
  if (members || stored.members === undefined) return stored;
  const { members: _members, ...rest } = stored;
  return rest;
}

/** Builds the service for one router configuration. */
export function createResourceService(config: ResourceServiceConfig): ResourceService {
  const { store, registry } = config;
  const handlers = new Map<string, TypeHandler>();
  for (const type of registry.resourceTypes) {
    const schema = registry.resourceType(type.id);
    if (schema) handlers.set(type.id, createTypeHandler(schema, config.profile));
  }
  const canSort = store.capabilities?.sort !== false;
  const canCursor = store.capabilities?.cursor !== false;
  const listConfig = { ...config, canSort, canCursor };

  const handler = (typeId: string): TypeHandler => {
    const found = handlers.get(typeId);
    if (!found) throw new Error(`Unknown resource type ${typeId}`);
    return found;
  };

  // A group's every member can be 100,000 of them (`writeLimits.maxMembers`): rendered in slices.
  const outcomeOf = async (context: ServiceContext, type: TypeHandler, stored: StoredResource): Promise<ResourceOutcome> => ({
    stored,
    resource: await renderResourceInSlices(
      registry,
      type.schema,
      context.baseUrl,
      stored,
      undefined,
      compatibilityOf(context).responses.emptyMultiValued,
    ),
  });

  const outbox = config.events?.durable === false ? undefined : store.events;
  const onEventsError = config.events?.onError ?? (() => {});
  const delivery: EventDelivery = {
    outbox,
    emit: config.emit,
    listening: config.events?.listening ?? true,
    leaseMs: config.events?.leaseMs ?? 60_000,
    onError: onEventsError,
    // One transaction per batch of delivered events, not one per write (issue 20).
    ...(outbox ? { marks: deliveredMarks(outbox, onEventsError) } : {}),
  };

  const read = async (context: ServiceContext, type: TypeHandler, id: string, members: boolean): Promise<StoredResource> => {
    // Every write reads first, so this keeps such ids from every store call of the service.
    if (!isPossibleId(id)) throw notFound(type, id);
    const stored = await store.get({ orgId: context.orgId, resourceType: type.id, id, members });
    if (!stored) throw notFound(type, id);
    return stored;
  };

  const checkIfMatch = (ifMatch: string | undefined, stored: StoredResource): void => {
    // RFC 7644 §3.14 with RFC 7232 §3.1: a stale version is 412, and nothing is written.
    if (ifMatch !== undefined && !matchesEntityTag(ifMatch, stored.version)) {
      throw scimError(
        "preconditionFailed",
        `The resource has changed: its version is W/"${stored.version}", not ${ifMatch}. Read it again and retry.`,
      );
    }
  };

  // architecture §4b: writes to one resource serialize. Keyed by organization, type and id: the same id
  // in two organizations is two resources. Not a locked read in the store contract (SELECT … FOR
  // UPDATE): every adapter would have to run the core's PATCH inside its own transaction, holding a
  // connection through validation, which a store whose statements run in a worker thread cannot;
  // the version check already makes a race between processes safe, and only needs retrying.
  const writing = keyedMutex();
  const serialized = <T>(context: ServiceContext, type: TypeHandler, id: string, work: () => Promise<T>): Promise<T> =>
    writing.run(JSON.stringify([context.orgId, type.id, id]), work);

  /**
   * Runs a read-modify-write of one resource after this process's earlier writes to it, and again
   * when another process wrote in between. With the client's `If-Match`, a conflict is its 412.
   */
  const readModifyWrite = <T>(
    context: ServiceContext,
    type: TypeHandler,
    id: string,
    ifMatch: string | undefined,
    attempt: () => Promise<T>,
  ): Promise<T> => serialized(context, type, id, () => (ifMatch === undefined ? retryVersionConflicts(attempt) : attempt()));

  /** Writes new attributes and/or a membership delta computed from the current resource. */
  const update = async (
    context: ServiceContext,
    type: TypeHandler,
    id: string,
    ifMatch: string | undefined,
    members: boolean,
    plan: (current: StoredResource) => Promise<UpdatePlan>,
    eventsOf: UpdateEvents = resourceEvents(registry, type, context).updated,
  ): Promise<ResourceOutcome> => {
    const { stored, deliver } = await readModifyWrite(
      context,
      type,
      id,
      ifMatch,
      async (): Promise<{ stored: StoredResource; deliver: () => Promise<void> }> => {
        const current = await read(context, type, id, false);
        checkIfMatch(ifMatch, current);
        const { attributes, attributesChanged, membership } = await plan(current);
        const membershipChanges = membership !== undefined && !isEmptyMembershipDelta(membership);
        if (!attributesChanged && !membershipChanges) {
          const unchanged = members && type.hasMembers ? await read(context, type, id, true) : current;
          const events = eventsOf(current.attributes, current, false, undefined);
          return { stored: unchanged, deliver: () => appendAndDeliver(delivery, context.orgId, events) };
        }
        const written = writeEvents(delivery, (result: WriteResult) =>
          eventsOf(current.attributes, result.resource, attributesChanged, result.membership),
        );
        const result = await store.update({
          orgId: context.orgId,
          resourceType: type.id,
          id,
          now: now(),
          // Membership deltas commute, so they need no version; attribute writes do, or a
          // concurrent change between our read and this write would be silently undone.
          ...(attributesChanged || ifMatch !== undefined ? { expectedVersion: current.version } : {}),
          ...(attributesChanged ? { attributes, uniqueKeys: uniqueKeysOf(type.schema, attributes) } : {}),
          ...(membershipChanges ? { membership } : {}),
          unknownMembers: config.unknownMembers,
          members: members && type.hasMembers,
          ...(written.recording ? { events: written.recording } : {}),
        });
        if (!result) throw notFound(type, id);
        return { stored: result.resource, deliver: () => written.deliver(result) };
      },
    );
    // After the lock: a slow listener, or a response of 100,000 members, delays only its own
    // request, not the next write to the resource.
    await deliver();
    return outcomeOf(context, type, stored);
  };

  const createNew = async (
    context: ServiceContext,
    type: TypeHandler,
    attributes: ScimObject,
    memberIds: readonly string[] | undefined,
    members: boolean,
  ): Promise<ResourceOutcome> => {
    const written = writeEvents(delivery, (created: WriteResult) =>
      resourceEvents(registry, type, context).created(created.resource, created.membership),
    );
    const result = await store.create({
      orgId: context.orgId,
      resourceType: type.id,
      id: uuidV7(),
      now: now(),
      attributes,
      uniqueKeys: uniqueKeysOf(type.schema, attributes),
      // Present exactly for a type with members, `[]` for none: how the store knows (CreateRequest).
      ...(memberIds ? { members: memberIds } : {}),
      unknownMembers: config.unknownMembers,
      ...(written.recording ? { events: written.recording } : {}),
    });
    await written.deliver(result);
    return outcomeOf(context, type, withMembersOrNot(result.resource, members));
  };

  // POSTs that may link to the same user wait for each other in this process (link-existing-user.ts).
  const linking = keyedMutex();
  const lockedInTurn = <T>(keys: readonly string[], work: () => Promise<T>): Promise<T> => {
    const [first, ...rest] = keys;
    return first === undefined ? work() : linking.run(first, () => lockedInTurn(rest, work));
  };

  /** A POST under `existingUsers: "link"`: the existing user updated as by a PUT, or a new one. */
  const createOrLinkUser = (
    context: ServiceContext,
    type: TypeHandler,
    attributes: ScimObject,
    ifMatch: string | undefined,
    members: boolean,
  ): Promise<ResourceOutcome> =>
    lockedInTurn(linkLockKeys(type, context.orgId, attributes), () =>
      createOrLink({
        find: () => findUserToLink(store, type, context.orgId, attributes),
        // Only users link, and a user has no member list.
        create: () => createNew(context, type, attributes, undefined, members),
        // RFC 7644 §3.5.1: a POST carries the whole resource, so it replaces as a PUT does.
        link: async (existing) => {
          const outcome = await update(
            context,
            type,
            existing.id,
            ifMatch,
            members,
            async (current) => ({ attributes, attributesChanged: !deepEqual(current.attributes, attributes), membership: undefined }),
            resourceEvents(registry, type, context).linked,
          );
          return { ...outcome, linked: true };
        },
      }),
    );

  return {
    handlers,
    canSort,
    canCursor,

    async create({ context, resourceType, body, ifMatch, members }) {
      const type = handler(resourceType);
      const { attributes, memberIds } = prepareWrite(type, body, config.writeLimits, compatibilityOf(context).tolerances);
      if (existingUserPolicy(type, context) === "link") {
        return createOrLinkUser(context, type, attributes, ifMatch, members);
      }
      return createNew(context, type, attributes, memberIds, members);
    },

    async get({ context, resourceType, id, members }) {
      const type = handler(resourceType);
      return outcomeOf(context, type, await read(context, type, id, members && type.hasMembers));
    },

    async replace({ context, resourceType, id, body, ifMatch, members }) {
      const type = handler(resourceType);
      // RFC 7644 §3.5.1: PUT replaces every attribute the client may write; members are replaced too.
      const { attributes, memberIds } = prepareWrite(type, body, config.writeLimits, compatibilityOf(context).tolerances);
      return update(
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
      checkPatchBounds(type, body, config.writeLimits, tolerances);
      return update(context, type, id, ifMatch, members, async (current) => {
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
      const written = await serialized(context, type, id, async () => {
        const found = await read(context, type, id, false);
        checkIfMatch(ifMatch, found);
        const events = writeEvents(delivery, (_deleted: true) => resourceEvents(registry, type, context).deleted(found));
        const deleted = await store.delete({
          orgId: context.orgId,
          resourceType: type.id,
          id,
          now: now(),
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
