/**
 * The storage contract (architecture §3): the one interface an adapter author implements. The core
 * hands every call clean input — a tenant, a resolved filter, numeric paging, a sort path, an
 * expected version, membership as deltas — so an adapter translates, it never parses.
 */
import type { Filter } from "../scim/filter/filter-ast.js";
import type { MembershipDelta } from "../scim/patch/membership-delta.js";
import type { ScimObject } from "../scim/schema/normalize-value.js";
import type { ResolvedPath } from "../scim/schema/resolved-path.js";
import type { SortKey } from "../scim/list/sort-key.js";
import type { EventOutbox, EventRecording } from "./event-outbox.js";

/** Where a call applies: one organization and one resource type. Nothing may cross either. */
export interface StoreScope {
  /** The organization (tenant) id from the URL. Ids, filters and uniqueness never cross it. */
  readonly orgId: string;
  /** The resource type's id as registered, e.g. `"User"` or `"Group"`. */
  readonly resourceType: string;
}

/**
 * A value that must be unique among the resources of one type in one organization, already
 * normalized by the core (`uniqueValue`): `value` is in Unicode NFC and lower-cased when the
 * attribute is not caseExact, so the store compares strings exactly. Derived from the schema's `uniqueness` (`userName`, and group
 * `displayName` per the spec).
 */
export interface UniqueKey {
  /**
   * The attribute's canonical path: `"userName"` for a core attribute, URN-qualified for an
   * extension attribute (`urn:…:User:employeeNumber`), so the two never share an index.
   */
  readonly attribute: string;
  /** The normalized value to compare exactly: NFC, lower-cased unless caseExact. */
  readonly value: string;
  /**
   * Whether the attribute is caseExact, so `value` kept its case; absent means false, as for
   * `userName` and `displayName`. A store comparing the key with a column the application wrote
   * itself (`tableStore`) folds that column unless this is true.
   */
  readonly caseExact?: boolean;
}

/** A member of a group as stored: its service id and the type the store found it to be. */
export interface StoredMember {
  /** The member's service-assigned id (`members.value`). */
  readonly value: string;
  /** The resource type of the member in the same organization: nested groups are stored, not expanded. */
  readonly type: string;
}

/** A resource as a store holds it. The core renders `schemas`, `id` and `meta` from it. */
export interface StoredResource {
  /**
   * Service-assigned id: the one the core chose (a UUID v7) and passed to `create`, or — for a
   * store whose database assigns ids (an integer key of the application's own table) — the one
   * it assigned. The core goes by the id `create` returns: the `Location`, the response, events,
   * Bulk `bulkId` references. Unique among the resources of one type in one organization; ids of
   * two types may coincide in such a store.
   */
  readonly id: string;
  /** Opaque version token without quotes; it changes on every write, membership changes included. */
  readonly version: string;
  /** ISO 8601 time of creation: the `now` of the create request. */
  readonly created: string;
  /** ISO 8601 time of the last write: the `now` of the last create or update that changed it. */
  readonly lastModified: string;
  /**
   * The canonical attributes the core last wrote, returned as given: everything but `id`, `meta`
   * and `members`. Stores may keep it as one JSON document.
   */
  readonly attributes: ScimObject;
  /**
   * The members when the request asked for them (`members: true`): `[]` for a group with none,
   * and absent for a resource that has no member list (a User). A resource has a member list when
   * it was created with `CreateRequest.members` — which the core sends exactly for a type with
   * members — or given members since. Absent whenever `members` was false. Order: the order
   * they were added; a `replace` keeps the members that stay in place and appends the new ones.
   */
  readonly members?: readonly StoredMember[];
}

/** What a membership write really did, for the events the host receives and for reporting. */
export interface MembershipChange {
  /** Ids that became members. */
  readonly added: readonly string[];
  /** Ids that stopped being members. */
  readonly removed: readonly string[];
  /** Ids named in the write that are not resources of this organization, so were not added. */
  readonly ignored: readonly string[];
}

/** The result of a create or update. */
export interface WriteResult {
  /** The resource as now stored, with `members` when the request asked for them. */
  readonly resource: StoredResource;
  /** Present when the write carried members or a membership delta. */
  readonly membership?: MembershipChange;
}

/**
 * What to do with member ids that name no resource of the organization (architecture §4):
 * `"ignore"` drops them and reports them in `MembershipChange.ignored`; `"reject"` fails the whole
 * write with 400 `invalidValue` naming them, and writes nothing.
 */
export type UnknownMemberPolicy = "ignore" | "reject";

/** Creates a resource. */
export interface CreateRequest extends StoreScope {
  /**
   * The id to store it under; unused in the organization. A store whose database assigns ids
   * itself may store the resource under its own instead, and returns it in
   * `WriteResult.resource.id`, which is the id from then on.
   */
  readonly id: string;
  /** ISO 8601 time to record as `created` and `lastModified`. */
  readonly now: string;
  /** Canonical attributes (no `id`, `meta`, `members`), already validated. */
  readonly attributes: ScimObject;
  /** Values to hold unique; a clash fails with 409 `uniqueness` and writes nothing. */
  readonly uniqueKeys: readonly UniqueKey[];
  /**
   * Initial member ids, each listed once. Present exactly when the resource type has members
   * (`ResourceTypeDefinition.hasMembers`, as Group), `[]` for none; absent for any other type.
   * This is how a store knows, without any schema, which resources have a member list: keep one
   * for a resource created with `members`, and return it (`[]` if need be) whenever a read asks
   * for members; a resource created without it carries no `members`.
   */
  readonly members?: readonly string[];
  /** What to do with unknown member ids. */
  readonly unknownMembers: UnknownMemberPolicy;
  /**
   * The events of this write, for a store with `events` (`ResourceStore.events`): build them from
   * the result inside the write's transaction, record them there, and report them after the commit.
   * Absent when the store has no outbox.
   */
  readonly events?: EventRecording<WriteResult>;
}

/** Reads one resource. */
export interface GetRequest extends StoreScope {
  readonly id: string;
  /**
   * Whether to load the members. False must not read them: a group may have 100,000. The core
   * asks only for a type with members.
   */
  readonly members: boolean;
}

/** Index paging (RFC 7644 §3.4.2.4), already clamped by the core. */
export interface IndexPage {
  readonly kind: "index";
  /** 1-based position of the first result; at least 1. */
  readonly startIndex: number;
  /** Most resources to return; 0 asks only for `totalResults`. */
  readonly count: number;
}

/** Where the previous cursor page ended: the sort key and id of its last resource. */
export interface SortPosition {
  readonly key: SortKey;
  readonly id: string;
}

/** Keyset paging behind RFC 9865 cursors; the core encodes and checks the cursor itself. */
export interface CursorPage {
  readonly kind: "cursor";
  /** Return only resources that come after this position in the list order; absent for the first page. */
  readonly after?: SortPosition;
  /** Most resources to return; at least 1. */
  readonly count: number;
}

/** A sort request, already resolved (RFC 7644 §3.4.2.3). */
export interface SortSpec {
  /** The attribute to sort by; compare with `sortKeyOf` and `compareSortKeys` from `scimkit/store`. */
  readonly path: ResolvedPath;
  readonly order: "ascending" | "descending";
}

/**
 * Lists resources. The list order is fixed by `compareListEntries`: by the sort key (ascending or
 * descending, a missing value after every present one when ascending), then by id ascending; with
 * no `sort`, by id alone.
 */
export interface ListRequest extends StoreScope {
  /**
   * Only resources that match. Push it down: an equality on `id`, `externalId` or a unique
   * attribute must use an index, not a scan. `matchesFilter(resourceView(type, r), filter)` is the
   * reference semantics for any node a store cannot translate. It may name `members`.
   */
  readonly filter?: Filter<ResolvedPath>;
  readonly sort?: SortSpec;
  readonly page: IndexPage | CursorPage;
  /** Whether the returned resources carry their members. */
  readonly members: boolean;
  /**
   * Whether to count the matches for `totalResults`. Default true. The core passes false for the
   * second and later pages of a cursor walk, whose total it carries in the cursor, so a walk
   * through a million resources does not count them again on every page.
   */
  readonly countTotal?: boolean;
}

/** One page of a list. */
export interface ListResult {
  /**
   * How many resources match the filter in all, regardless of paging; when the request said
   * `countTotal: false`, a store may skip counting and return -1.
   */
  readonly totalResults: number;
  /** The page, in list order. */
  readonly resources: readonly StoredResource[];
}

/** Updates a resource's attributes, its members, or both, in one atomic write. */
export interface UpdateRequest extends StoreScope {
  readonly id: string;
  /** ISO 8601 time to record as `lastModified`. */
  readonly now: string;
  /** When set, the write happens only if the stored version equals it; otherwise 412, nothing written. */
  readonly expectedVersion?: string;
  /** The new complete attribute set; absent to leave attributes as they are. */
  readonly attributes?: ScimObject;
  /** The unique values of the new attributes; given whenever `attributes` is. */
  readonly uniqueKeys?: readonly UniqueKey[];
  /**
   * The resource as the caller read it, when `expectedVersion` is that read's version: a store may
   * write from it instead of reading the row, since the write happens only at that version. One
   * that ignores it reads as usual. The core sets it on attribute writes.
   */
  readonly read?: ReadSnapshot;
  /**
   * The change to the member ids (a type with members only: a resource created with
   * `CreateRequest.members`), applied in the store without reading the other members, so
   * concurrent deltas from several processes all take effect.
   */
  readonly membership?: MembershipDelta;
  readonly unknownMembers: UnknownMemberPolicy;
  /** Whether the result carries the members. */
  readonly members: boolean;
  /**
   * The events of this write, when it finds the resource, for a store with `events` (`ResourceStore.events`): build them from
   * the result inside the write's transaction, record them there, and report them after the commit.
   * Absent when the store has no outbox.
   */
  readonly events?: EventRecording<WriteResult>;
}

/** What `UpdateRequest.read` says of the resource the write was computed from. */
export interface ReadSnapshot {
  /** The version it was read at. */
  readonly version: string;
  /** Its `created`, unchanged by an update. */
  readonly created: string;
  /** Its attributes at that version. */
  readonly attributes: ScimObject;
  /** The unique values those attributes derive (`uniqueKeysOf`), which the resource holds at that version. */
  readonly uniqueKeys: readonly UniqueKey[];
}

/** Deletes a resource. */
export interface DeleteRequest extends StoreScope {
  readonly id: string;
  /**
   * ISO 8601 time to record as `lastModified` of the groups that lose the deleted resource as a
   * member. The router always sets it; a store may fall back to its own clock.
   */
  readonly now?: string;
  /** When set, deletes only if the stored version equals it; otherwise 412. */
  readonly expectedVersion?: string;
  /**
   * The events of this delete, when it deletes, for a store with `events` (`ResourceStore.events`): build them from
   * the result inside the write's transaction, record them there, and report them after the commit.
   * Absent when the store has no outbox.
   */
  readonly events?: EventRecording<true>;
}

/**
 * Optional abilities, declared rather than sniffed. The router advertises them in
 * `/ServiceProviderConfig` and refuses requests that need a missing one.
 */
export interface StoreCapabilities {
  /** Honours `ListRequest.sort`. Default true. */
  readonly sort?: boolean;
  /** Honours `CursorPage` (RFC 9865 cursors). Default true. */
  readonly cursor?: boolean;
  /**
   * Keeps resources of types with members (`CreateRequest.members`: Group). Default true. A store
   * over an application that has no groups declares false and answers a create of one with 501;
   * the conformance kit then leaves groups out of its checks.
   */
  readonly groups?: boolean;
  /**
   * Every id names one resource of the organization whatever its type, as the core's UUIDs do.
   * Default true. A store that numbers each type's resources on its own (`tableStore` over
   * integer or text ids) declares false: the search at the service root, which resumes every
   * type from one (sort key, id) position, then pages by index only and refuses a cursor.
   */
  readonly idsUniqueAcrossTypes?: boolean;
}

/**
 * A place to keep SCIM resources for many organizations. Implement it for your database and run
 * `describeStoreConformance` from `scimkit/testkit` to know you are done.
 *
 * Errors: throw `ScimError` — 409 `uniqueness` for a unique clash, 412 (no scimType) for a
 * version mismatch, 400 `invalidValue` for rejected unknown members. Anything else thrown is
 * treated as an internal failure (500, reported to the host's `onError`).
 *
 * @example
 * const store = memoryStore();
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth }));
 */
export interface ResourceStore {
  /** Optional abilities; see `StoreCapabilities` for the defaults. */
  readonly capabilities?: StoreCapabilities;
  /**
   * The store's event outbox. Optional: a store that has one records each write's events in the
   * write (`CreateRequest.events`, …) and the router feeds `onEvent` from it, so no event is lost
   * or invented when a process dies; without one, events are delivered in-process only.
   */
  readonly events?: EventOutbox;
  /** Creates a resource and its initial members atomically. */
  create(request: CreateRequest): Promise<WriteResult>;
  /** One resource, or `undefined` when the organization has none of that type with this id. */
  get(request: GetRequest): Promise<StoredResource | undefined>;
  /** A page of the resources that match, in list order, with the total. */
  list(request: ListRequest): Promise<ListResult>;
  /**
   * Writes new attributes and/or a membership delta; bumps the version and `lastModified` when
   * anything changed. `undefined` when there is no such resource.
   */
  update(request: UpdateRequest): Promise<WriteResult | undefined>;
  /**
   * Deletes a resource and removes it from every group of the organization that lists it as a
   * member. False when there was no such resource.
   */
  delete(request: DeleteRequest): Promise<boolean>;
  /**
   * Deletes every resource of organization `orgId` — of every type, with its memberships and
   * unique values — and says how many resources there were (0 for an organization with none).
   * Optional: the analytics interface calls it when the operator deletes an organization
   * (`AnalyticsStore.deleteOrganization`); a store without it is emptied one resource at a time.
   *
   * @example await store.deleteOrganization?.("acme") // 1204
   */
  deleteOrganization?(orgId: string): Promise<number>;
  /** Releases connections and timers. Optional. */
  close?(): Promise<void>;
}
