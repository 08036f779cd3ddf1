/**
 * The SCIM operations on resources (RFC 7644 §3.3–§3.6), free of Express so that the routes and
 * `/Bulk` run the very same code: validate, read-modify-write against the store with optimistic
 * concurrency, and deliver lifecycle events after the store has committed.
 */
import { v7 as uuidv7 } from "uuid";
import { ScimError, ScimType, badRequest, invalidValueError } from "../errors.js";
import { driveInSlices, eventLoopSlice, mapInSlices, pauseIfDue } from "../event-loop-slice.js";
import { unwrap } from "../result.js";
import { deepEqual } from "../scim/deep-equal.js";
import type { FilterLimits } from "../scim/filter/parse-filter.js";
import { compileFilter } from "../scim/filter/resolve-filter.js";
import { sortKeyOf } from "../scim/list/sort-key.js";
import { applyPatchStepwise } from "../scim/patch/apply-patch.js";
import { isEmptyMembershipDelta, replaceMembers, type MembershipDelta } from "../scim/patch/membership-delta.js";
import { createResourceValidator, type ResourceValidator } from "../scim/schema/create-resource-validator.js";
import { isPlainObject, type ScimObject } from "../scim/schema/normalize-value.js";
import type { ResourceProfile } from "../scim/schema/resource-profile.js";
import type { ResourceSchema, SchemaRegistry } from "../scim/schema/schema-registry.js";
import { formatPath } from "../scim/schema/resolved-path.js";
import { valueCountIssues } from "../scim/schema/value-count-issues.js";
import { resourceView } from "../store/resource-view.js";
import type {
  ListRequest,
  ListResult,
  MembershipChange,
  ResourceStore,
  SortSpec,
  StoredResource,
  UnknownMemberPolicy,
} from "../store/resource-store.js";
import { uniqueKeysOf } from "../store/unique-keys.js";
import type { WorkPermit } from "./expensive-work-gate.js";
import { decodeCursor, encodeCursor, type CursorScope } from "./list-cursor.js";
import type { ListParameters } from "./list-parameters.js";
import { renderResource, renderResourceInSlices } from "./render-resource.js";
import type { ScimEvent } from "./scim-event.js";
import { matchesEntityTag } from "./entity-tags.js";
import { isPossibleId } from "./is-possible-id.js";
import { keyedMutex } from "./keyed-mutex.js";
import { retryVersionConflicts } from "./retry-version-conflicts.js";
import type { WriteLimits } from "./write-limits.js";

const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";

/** Who is asking and where their SCIM service lives. */
export interface ServiceContext {
  readonly orgId: string;
  /** Absolute base URL of the organization's SCIM service, without a trailing slash. */
  readonly baseUrl: string;
}

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
}

/** A resource type as the service handles it. */
export interface TypeHandler {
  readonly id: string;
  readonly schema: ResourceSchema;
  readonly validator: ResourceValidator;
  /** Whether the type has group `members`, kept by the store as a membership. */
  readonly hasMembers: boolean;
}

/** The outcome of a write or read of one resource. */
export interface ResourceOutcome {
  readonly stored: StoredResource;
  /** Rendered for the response (before any `attributes` projection). */
  readonly resource: ScimObject;
}

/** A list page, normalized for the ListResponse (RFC 7644 §3.4.2). */
export interface ListOutcome {
  readonly totalResults: number;
  readonly resources: readonly ScimObject[];
  /** For index paging, the 1-based index of the first result. */
  readonly startIndex?: number;
  /** For cursor paging (RFC 9865), the cursor of the next page when there is one. */
  readonly nextCursor?: string;
  readonly cursorPaging: boolean;
}

export interface ListOptions {
  /** Whether the resources should carry members (the response's projection includes them). */
  readonly members: boolean;
  /**
   * Asked with the store's request once the parameters are valid, before the store is: resolves
   * with a permit to release when the page is rendered, or `undefined` when the request may run
   * at once (the router's fair share, `WorkAdmission`). Absent: every list runs at once.
   */
  readonly admit?: (request: ListRequest) => Promise<WorkPermit | undefined>;
}

/**
 * Drops writeOnly attributes (`password`): RFC 7643 §4.1.1 forbids returning them and we offer no
 * use for them (`changePassword` is unsupported), so keeping a cleartext password would be all risk.
 */
function withoutWriteOnly(schema: ResourceSchema, resource: ScimObject): ScimObject {
  const copy: ScimObject = { ...resource };
  for (const attribute of schema.core.attributes) {
    if (attribute.mutability === "writeOnly") delete copy[attribute.name];
  }
  for (const { schema: extension } of schema.extensions) {
    const container = copy[extension.id];
    if (!isPlainObject(container) || !extension.attributes.some((attribute) => attribute.mutability === "writeOnly")) continue;
    const kept: ScimObject = { ...container };
    for (const attribute of extension.attributes) if (attribute.mutability === "writeOnly") delete kept[attribute.name];
    if (Object.keys(kept).length === 0) delete copy[extension.id];
    else copy[extension.id] = kept;
  }
  return copy;
}

function splitMembers(handler: TypeHandler, prepared: ScimObject): { attributes: ScimObject; memberIds: string[] | undefined } {
  const { schemas: _schemas, id: _id, meta: _meta, members, ...attributes } = withoutWriteOnly(handler.schema, prepared);
  if (!handler.hasMembers) return { attributes: { ...attributes, ...(members === undefined ? {} : { members }) }, memberIds: undefined };
  const elements = Array.isArray(members) ? members : [];
  const ids: string[] = [];
  elements.forEach((element, index) => {
    const value = isPlainObject(element) ? element["value"] : undefined;
    if (typeof value !== "string" || value === "") {
      throw new ScimError(400, ScimType.invalidValue, `members[${index}].value: is required (the member's id).`);
    }
    ids.push(value);
  });
  return { attributes, memberIds: [...new Set(ids)] };
}

/**
 * Every element of a client's `members` must name a member id. Checked on the raw body because
 * normalization drops readOnly sub-attributes (`display`), and an element left empty would vanish.
 */
function assertMemberValues(handler: TypeHandler, body: unknown): void {
  if (!handler.hasMembers || !isPlainObject(body)) return;
  const key = Object.keys(body).find((candidate) => candidate.toLowerCase() === "members");
  const members = key === undefined ? undefined : body[key];
  if (!Array.isArray(members)) return;
  members.forEach((element, index) => {
    if (element === null || element === undefined) return;
    const value = isPlainObject(element) ? Object.entries(element).find(([name]) => name.toLowerCase() === "value")?.[1] : element;
    if (typeof value !== "string" || value === "") {
      throw new ScimError(400, ScimType.invalidValue, `members[${index}].value: is required (the member's id).`);
    }
  });
}

function withoutServerAttributes(resource: ScimObject): ScimObject {
  const { schemas: _schemas, id: _id, meta: _meta, members: _members, ...attributes } = resource;
  return attributes;
}

function notFound(handler: TypeHandler, id: string): ScimError {
  return new ScimError(404, undefined, `${handler.schema.resourceType.name} ${JSON.stringify(id)} not found.`);
}

function now(): string {
  return new Date().toISOString();
}

/** Builds the service for one router configuration. */
export function createResourceService(config: ResourceServiceConfig) {
  const { store, registry } = config;
  const handlers = new Map<string, TypeHandler>();
  for (const type of registry.resourceTypes) {
    const schema = registry.resourceType(type.id);
    if (!schema) continue;
    handlers.set(type.id, {
      id: type.id,
      schema,
      validator: createResourceValidator(schema, config.profile),
      hasMembers: schema.core.id === GROUP_SCHEMA,
    });
  }
  const canSort = store.capabilities?.sort !== false;
  const canCursor = store.capabilities?.cursor !== false;

  const handler = (typeId: string): TypeHandler => {
    const found = handlers.get(typeId);
    if (!found) throw new Error(`Unknown resource type ${typeId}`);
    return found;
  };

  /** A POST or PUT body → what to store, within `writeLimits` (400 `invalidValue` or 413 naming the limit). */
  const prepareWithin = (type: TypeHandler, body: unknown): { attributes: ScimObject; memberIds: string[] | undefined } => {
    const prepared = unwrap(type.validator.prepare(body));
    const { maxValues, maxMembers } = config.writeLimits;
    const issues = valueCountIssues(type.schema, prepared, maxValues, (attribute) => type.hasMembers && attribute.name === "members");
    if (issues.length > 0) throw invalidValueError(issues);
    const split = splitMembers(type, prepared);
    if (split.memberIds && split.memberIds.length > maxMembers) {
      throw new ScimError(413, undefined, `The request names ${split.memberIds.length} members; the limit is ${maxMembers} (maxMembers).`);
    }
    return split;
  };

  const render = (context: ServiceContext, type: TypeHandler, stored: StoredResource): ScimObject =>
    renderResource(registry, type.schema, context.baseUrl, stored);

  // A group's every member can be 100,000 of them (`writeLimits.maxMembers`): rendered in slices.
  const outcomeOf = async (context: ServiceContext, type: TypeHandler, stored: StoredResource): Promise<ResourceOutcome> => ({
    stored,
    resource: await renderResourceInSlices(registry, type.schema, context.baseUrl, stored),
  });

  const eventName = (type: TypeHandler, action: string): ScimEvent["type"] => {
    const prefix = type.id === "User" ? "user" : type.id === "Group" ? "group" : "resource";
    return `${prefix}.${action}` as ScimEvent["type"];
  };

  const event = (context: ServiceContext, type: TypeHandler, action: string, stored: StoredResource, memberIds?: readonly string[]): ScimEvent => {
    const { members: _members, ...withoutMembers } = stored;
    return {
      type: eventName(type, action),
      orgId: context.orgId,
      resourceType: type.id,
      id: stored.id,
      resource: render(context, type, withoutMembers),
      ...(memberIds ? { memberIds } : {}),
    };
  };

  const membershipEvents = (context: ServiceContext, type: TypeHandler, stored: StoredResource, change: MembershipChange | undefined): ScimEvent[] => {
    if (!change) return [];
    const events: ScimEvent[] = [];
    // Also on create: a host that grants access by group needs the initial members too.
    if (change.added.length > 0) events.push(event(context, type, "members.added", stored, change.added));
    if (change.removed.length > 0) events.push(event(context, type, "members.removed", stored, change.removed));
    if (change.ignored.length > 0) events.push(event(context, type, "members.ignored", stored, change.ignored));
    return events;
  };

  const deliver = async (events: readonly ScimEvent[]): Promise<void> => {
    for (const item of events) await config.emit(item);
  };

  const activationEvents = (context: ServiceContext, type: TypeHandler, before: ScimObject, after: StoredResource): ScimEvent[] => {
    if (type.id !== "User") return [];
    // A user without `active` counts as active: RFC 7643 §4.1.1 leaves the default to the provider.
    const wasActive = before["active"] !== false;
    const isActive = after.attributes["active"] !== false;
    if (wasActive === isActive) return [];
    return [event(context, type, isActive ? "activated" : "deactivated", after)];
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
      throw new ScimError(412, undefined, `The resource has changed: its version is W/"${stored.version}", not ${ifMatch}. Read it again and retry.`);
    }
  };

  // DESIGN §4b: writes to one resource serialize. Keyed by organization, type and id: the same id
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
  const readModifyWrite = <T>(context: ServiceContext, type: TypeHandler, id: string, ifMatch: string | undefined, attempt: () => Promise<T>): Promise<T> =>
    serialized(context, type, id, () => (ifMatch === undefined ? retryVersionConflicts(attempt) : attempt()));

  const create = async (context: ServiceContext, typeId: string, body: unknown, members: boolean): Promise<ResourceOutcome> => {
    const type = handler(typeId);
    assertMemberValues(type, body);
    const { attributes, memberIds } = prepareWithin(type, body);
    const result = await store.create({
      orgId: context.orgId,
      resourceType: type.id,
      id: uuidv7(),
      now: now(),
      attributes,
      uniqueKeys: uniqueKeysOf(type.schema, attributes),
      ...(memberIds ? { members: memberIds } : {}),
      unknownMembers: config.unknownMembers,
    });
    await deliver([event(context, type, "created", result.resource), ...membershipEvents(context, type, result.resource, result.membership)]);
    return outcomeOf(context, type, withMembersOrNot(result.resource, members));
  };

  const get = async (context: ServiceContext, typeId: string, id: string, members: boolean): Promise<ResourceOutcome> => {
    const type = handler(typeId);
    return outcomeOf(context, type, await read(context, type, id, members && type.hasMembers));
  };

  /** Writes new attributes and/or a membership delta computed from the current resource. */
  const update = async (
    context: ServiceContext,
    type: TypeHandler,
    id: string,
    ifMatch: string | undefined,
    members: boolean,
    compute: (current: StoredResource) => Promise<{ attributes: ScimObject; membership: MembershipDelta | undefined }>,
  ): Promise<ResourceOutcome> => {
    const { stored, events } = await readModifyWrite(context, type, id, ifMatch, async (): Promise<{ stored: StoredResource; events: ScimEvent[] }> => {
      const current = await read(context, type, id, false);
      checkIfMatch(ifMatch, current);
      const { attributes, membership } = await compute(current);
      const attributesChanged = !deepEqual(current.attributes, attributes);
      const membershipChanges = membership !== undefined && !isEmptyMembershipDelta(membership);
      if (!attributesChanged && !membershipChanges) {
        return { stored: members && type.hasMembers ? await read(context, type, id, true) : current, events: [] };
      }
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
      });
      if (!result) throw notFound(type, id);
      return {
        stored: result.resource,
        events: [
          ...(attributesChanged ? [event(context, type, "updated", result.resource), ...activationEvents(context, type, current.attributes, result.resource)] : []),
          ...membershipEvents(context, type, result.resource, result.membership),
        ],
      };
    });
    // After the lock: a slow listener, or a response of 100,000 members, delays only its own
    // request, not the next write to the resource.
    await deliver(events);
    return outcomeOf(context, type, stored);
  };

  const replace = async (context: ServiceContext, typeId: string, id: string, body: unknown, ifMatch: string | undefined, members: boolean): Promise<ResourceOutcome> => {
    const type = handler(typeId);
    // RFC 7644 §3.5.1: PUT replaces every attribute the client may write; members are replaced too.
    assertMemberValues(type, body);
    const { attributes, memberIds } = prepareWithin(type, body);
    return update(context, type, id, ifMatch, members, async () => ({
      attributes,
      membership: memberIds ? replaceMembers(memberIds) : undefined,
    }));
  };

  const patch = async (context: ServiceContext, typeId: string, id: string, body: unknown, ifMatch: string | undefined, members: boolean): Promise<ResourceOutcome> => {
    const type = handler(typeId);
    return update(context, type, id, ifMatch, members, async (current) => {
      // Groups are patched without loading their members: member operations become a delta. The
      // engine pauses after each step, and a long request lets the event loop turn (DESIGN §4b).
      const { maxPatchOperations, maxValues, maxMembers } = config.writeLimits;
      const steps = applyPatchStepwise(type.schema, { ...current.attributes, id: current.id }, body, {
        membersLoaded: !type.hasMembers,
        filterLimits: config.filterLimits,
        maxPatchOperations,
        maxValues,
        maxMembers,
      });
      const patched = unwrap(await driveInSlices(steps));
      const conformed = unwrap(type.validator.conform(patched.resource));
      return { attributes: withoutServerAttributes(withoutWriteOnly(type.schema, conformed)), membership: patched.membership };
    });
  };

  const remove = async (context: ServiceContext, typeId: string, id: string, ifMatch: string | undefined): Promise<void> => {
    const type = handler(typeId);
    // Serialized too, so the "deleted" event carries the last version, not one a concurrent write replaced.
    const current = await serialized(context, type, id, async () => {
      const found = await read(context, type, id, false);
      checkIfMatch(ifMatch, found);
      const deleted = await store.delete({
        orgId: context.orgId,
        resourceType: type.id,
        id,
        now: now(),
        ...(ifMatch === undefined ? {} : { expectedVersion: found.version }),
      });
      if (!deleted) throw notFound(type, id);
      return found;
    });
    await deliver([event(context, type, "deleted", current)]);
  };

  const list = async (context: ServiceContext, typeId: string, parameters: ListParameters, options: ListOptions): Promise<ListOutcome> => {
    const type = handler(typeId);
    const filter = parameters.filter === undefined ? undefined : unwrap(compileFilter(type.schema, parameters.filter, config.filterLimits));
    const sort = resolveSort(type, parameters, canSort);
    // RFC 7644 §3.4.2.4: a negative count is 0; a count over the maximum is clamped to it.
    const count = Math.min(Math.max(parameters.count ?? config.defaultPageSize, 0), config.maxPageSize);
    const scope = {
      orgId: context.orgId,
      resourceType: type.id,
      ...(filter ? { filter } : {}),
      ...(sort ? { sort } : {}),
      members: options.members && type.hasMembers,
    };
    // Only a request that has passed validation takes a turn; the permit covers the store's work
    // and the rendering of its page, the part that grows with the organization (DESIGN §4b).
    const listed = async <T>(request: ListRequest, finish: (page: ListResult) => Promise<T>): Promise<T> => {
      const permit = await options.admit?.(request);
      try {
        return await finish(await store.list(request));
      } finally {
        permit?.release();
      }
    };
    // A page is as large as the host's `paging.maxPageSize` allows: rendered in slices of the loop.
    const rendered = async (resources: readonly StoredResource[]): Promise<ScimObject[]> => {
      if (!scope.members) return mapInSlices(resources, (stored) => render(context, type, stored));
      // Groups with their members: one of them alone can outlast a slice, so each is rendered in
      // slices of the same clock, and the clock is asked between them too.
      const slice = eventLoopSlice();
      const page: ScimObject[] = [];
      for (const stored of resources) {
        page.push(await renderResourceInSlices(registry, type.schema, context.baseUrl, stored, slice));
        await pauseIfDue(slice);
      }
      return page;
    };
    if (parameters.cursor === undefined) {
      // RFC 7644 §3.4.2.4: startIndex is 1-based, and a value below 1 is read as 1.
      const startIndex = Math.min(Math.max(parameters.startIndex ?? 1, 1), Number.MAX_SAFE_INTEGER);
      return listed({ ...scope, page: { kind: "index", startIndex, count } }, async (page) => ({
        totalResults: page.totalResults,
        resources: await rendered(page.resources),
        startIndex,
        cursorPaging: false,
      }));
    }
    if (!canCursor) throw badRequest(ScimType.invalidValue, "This service does not support cursor paging (RFC 9865); page with startIndex and count.");
    if (parameters.startIndex !== undefined) {
      throw badRequest(ScimType.invalidValue, "Use either cursor or startIndex, not both (RFC 9865 §2).");
    }
    const cursorScope: CursorScope = {
      orgId: context.orgId,
      resourceType: type.id,
      filter: parameters.filter ?? "",
      sortBy: sort ? formatPath(sort.path) : "",
      sortOrder: sort?.order ?? "",
      secret: config.cursorSecret,
    };
    const resumed = parameters.cursor === "" ? undefined : decodeCursor(parameters.cursor, cursorScope);
    if (count === 0) {
      return listed({ ...scope, page: { kind: "index", startIndex: 1, count: 0 } }, async (page) => ({
        totalResults: page.totalResults,
        resources: [],
        cursorPaging: true,
      }));
    }
    // One more than asked tells whether a next page exists without a second query; the total was
    // counted on the walk's first page and travels in the cursor.
    const request: ListRequest = {
      ...scope,
      page: { kind: "cursor", ...(resumed ? { after: resumed.position } : {}), count: count + 1 },
      ...(resumed ? { countTotal: false } : {}),
    };
    return listed(request, async (page) => {
      const totalResults = resumed ? resumed.total : page.totalResults;
      const resources = page.resources.slice(0, count);
      const last = resources[resources.length - 1];
      const nextCursor =
        page.resources.length > count && last
          ? encodeCursor(
              { position: { key: sort ? sortKeyOf(resourceView(type.id, last), sort.path) : null, id: last.id }, total: totalResults },
              cursorScope,
            )
          : undefined;
      return {
        totalResults,
        resources: await rendered(resources),
        ...(nextCursor ? { nextCursor } : {}),
        cursorPaging: true,
      };
    });
  };

  return { handler, handlers, create, get, replace, patch, remove, list, canSort, canCursor };
}

export type ResourceService = ReturnType<typeof createResourceService>;

function withMembersOrNot(stored: StoredResource, members: boolean): StoredResource {
  if (members || stored.members === undefined) return stored;
  const { members: _members, ...rest } = stored;
  return rest;
}

function resolveSort(type: TypeHandler, parameters: ListParameters, canSort: boolean): SortSpec | undefined {
  // RFC 7644 §3.4.2.3: sorting is optional; a provider that does not sort ignores the parameters.
  if (!canSort || parameters.sortBy === undefined || parameters.sortBy.trim() === "") return undefined;
  const resolved = type.schema.resolvePath(parameters.sortBy.trim());
  if (!resolved.ok) throw badRequest(ScimType.invalidValue, `sortBy: ${resolved.reason}`);
  const leaf = resolved.path.subAttribute ?? resolved.path.attribute;
  if (leaf.type === "complex" && !leaf.subAttributes?.some((sub) => sub.name === "value")) {
    throw badRequest(ScimType.invalidValue, `sortBy: "${parameters.sortBy}" is a complex attribute; name one of its sub-attributes.`);
  }
  if (type.hasMembers && resolved.path.attribute.name === "members") {
    throw badRequest(ScimType.invalidValue, "sortBy: groups cannot be sorted by their members.");
  }
  const order = (parameters.sortOrder ?? "ascending").trim().toLowerCase();
  if (order !== "ascending" && order !== "descending") {
    throw badRequest(ScimType.invalidValue, `sortOrder must be "ascending" or "descending"; got ${JSON.stringify(parameters.sortOrder)}.`);
  }
  return { path: resolved.path, order };
}
