/**
 * A `ResourceStore` over any async key-value backend — the example of writing a store for your
 * own database (docs/writing-a-store.md). It imports scimkit only through its public entry point,
 * as a third-party adapter would, and passes the whole conformance kit
 * (`key-value-store.conformance.test.ts`).
 *
 * How the contract maps onto keys and values (the full table is in `key-layout.ts`):
 * - a resource is one JSON record; its unique values and its `externalId` have index keys, so
 *   `eq` on `id`, `externalId` or a unique attribute is a lookup (`index-candidates.ts`), and any
 *   other filter scans the organization's records of that type and runs `matchesFilter`;
 * - membership is one key per (group, member) pair plus a reverse key, so a delta touches only
 *   the pairs it names and a delete finds its groups directly (`member-pairs.ts`);
 * - versions are counters in the record; the list order and cursors come from scimkit's
 *   `compareListEntries` (`select-page.ts`);
 * - atomicity comes from a per-organization lock (`async-mutex.ts`), since the backend has none.
 */
import { isDeepStrictEqual } from "node:util";
import {
  isMembersPath,
  mentionsMembers,
  preconditionFailedError,
  resourceView,
  sortKeyOf,
  uniquenessError,
  unknownMembersError,
  type ListEntry,
  type MembershipChange,
  type ResourceStore,
  type StoreOptions,
  type StoredMember,
  type StoredResource,
  type UniqueKey,
  type UnknownMemberPolicy,
  type WriteResult,
} from "scimkit/store";
import { matchesFilter, type ScimObject } from "scimkit/core";
import { keyedMutex } from "./async-mutex.js";
import { indexCandidates } from "./index-candidates.js";
import type { KeyValueBackend } from "./key-value-backend.js";
import { keys } from "./key-layout.js";
import {
  applyMembership,
  changesMembers,
  groupsListing,
  memberIdsOf,
  planMembership,
  readMembers,
  unlink,
  type MembershipPlan,
} from "./member-pairs.js";
import { externalIdOf, parseRecord, serializeRecord, storedResourceOf, type ResourceRecord } from "./resource-record.js";
import { selectPage } from "./select-page.js";

/** Options of `keyValueStore`: the ones every scimkit store shares (`now`). */
export type KeyValueStoreOptions = StoreOptions;

function assertVersion(record: ResourceRecord, expected: string | undefined): void {
  // RFC 7644 §3.14: a failed precondition is 412, and nothing is written.
  if (expected !== undefined && expected !== String(record.version)) throw preconditionFailedError();
}

function assertMembersAllowed(plan: MembershipPlan, policy: UnknownMemberPolicy): void {
  if (policy === "reject" && plan.ignored.length > 0) throw unknownMembersError(plan.ignored);
}

/** What the write did, as the contract reports it (without the plan's bookkeeping). */
function changeOf(plan: MembershipPlan): MembershipChange {
  return { added: plan.added, removed: plan.removed, ignored: plan.ignored };
}

/** A list match: the record, its members when the filter or sort needed them, and its place in the order. */
interface Match extends ListEntry {
  readonly record: ResourceRecord;
  readonly members: readonly StoredMember[] | undefined;
}

/**
 * A `ResourceStore` that keeps every organization's users and groups in `backend`. It declares
 * `sort` and `cursor`.
 *
 * @example
 * import { createScimRouter } from "scimkit";
 * const store = keyValueStore(memoryBackend());       // or your Redis / DynamoDB backend
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth }));
 */
export function keyValueStore(backend: KeyValueBackend, options: KeyValueStoreOptions = {}): ResourceStore {
  const now = options.now ?? (() => new Date().toISOString());

  // Every call runs under its organization's lock, reads included. Writes need it because each
  // is a read-check-write sequence across several keys (uniqueness, expected version, membership)
  // that another request could interleave with at any `await`; reads take it so they never see
  // half of a multi-key write. Organizations never wait for each other.
  const lock = keyedMutex();
  const inOrganization = <T>(orgId: string, task: () => Promise<T>): Promise<T> => lock.run(orgId, task);

  const readRecord = async (orgId: string, type: string, id: string): Promise<ResourceRecord | undefined> => {
    const json = await backend.get(keys.resource(orgId, type, id));
    return json === undefined ? undefined : parseRecord(json);
  };

  /** Writes `record` and returns the stored copy, parsed back, so what a caller gets is what was stored. */
  const writeRecord = async (orgId: string, type: string, record: ResourceRecord): Promise<ResourceRecord> => {
    const json = serializeRecord(record);
    await backend.set(keys.resource(orgId, type, record.id), json);
    return parseRecord(json);
  };

  async function* scanRecords(orgId: string, type: string): AsyncIterable<ResourceRecord> {
    for await (const [, json] of backend.scan(keys.resources(orgId, type))) yield parseRecord(json);
  }

  async function* readRecords(orgId: string, type: string, ids: readonly string[]): AsyncIterable<ResourceRecord> {
    for (const id of ids) {
      const record = await readRecord(orgId, type, id);
      if (record) yield record;
    }
  }

  /** The first of `uniqueKeys` that a resource other than `id` holds. Keys come normalized, so this compares exactly. */
  const findClash = async (orgId: string, type: string, id: string, uniqueKeys: readonly UniqueKey[]): Promise<UniqueKey | undefined> => {
    for (const key of uniqueKeys) {
      const holder = await backend.get(keys.unique(orgId, type, key.attribute, key.value));
      if (holder !== undefined && holder !== id) return key;
    }
    return undefined;
  };

  const indexRecord = async (orgId: string, type: string, record: ResourceRecord): Promise<void> => {
    for (const key of record.uniqueKeys) await backend.set(keys.unique(orgId, type, key.attribute, key.value), record.id);
    const externalId = externalIdOf(record.attributes);
    if (externalId !== undefined) await backend.set(keys.externalId(orgId, type, externalId, record.id), record.id);
  };

  const unindexRecord = async (orgId: string, type: string, record: ResourceRecord): Promise<void> => {
    for (const key of record.uniqueKeys) {
      const indexKey = keys.unique(orgId, type, key.attribute, key.value);
      // Only the holder releases a value; never delete a key that names someone else.
      if ((await backend.get(indexKey)) === record.id) await backend.delete(indexKey);
    }
    const externalId = externalIdOf(record.attributes);
    if (externalId !== undefined) await backend.delete(keys.externalId(orgId, type, externalId, record.id));
  };

  /** The members to return: read only when the request wants them and the resource has a list (architecture §3). */
  const membersFor = async (orgId: string, record: ResourceRecord, wanted: boolean): Promise<StoredMember[] | undefined> =>
    wanted && record.hasMembers ? readMembers(backend, orgId, record.id) : undefined;

  const assertHasMembers = (type: string, record: ResourceRecord): void => {
    // The core creates a resource of a type with members with `members` ([] for none) and sends
    // deltas only for such types; a delta for any other resource is a caller bug.
    if (!record.hasMembers) throw new Error(`keyValueStore: ${type} ${record.id} has no members (it was created without \`members\`)`);
  };

  /** A group lost a member because the member was deleted: that is a write to the group (RFC 7644 §3.14). */
  const touchGroup = async (orgId: string, groupId: string, time: string): Promise<void> => {
    const type = await backend.get(keys.typeOf(orgId, groupId));
    const group = type === undefined ? undefined : await readRecord(orgId, type, groupId);
    if (type === undefined || !group) return;
    await writeRecord(orgId, type, { ...group, version: group.version + 1, lastModified: time });
  };

  return {
    capabilities: { sort: true, cursor: true },

    create(request) {
      const { orgId, resourceType: type, id } = request;
      return inOrganization(orgId, async (): Promise<WriteResult> => {
        // The core picks fresh UUIDs, so a taken id is a bug in the caller, not a client error.
        if ((await backend.get(keys.typeOf(orgId, id))) !== undefined) throw new Error(`keyValueStore: id ${id} is already in use`);
        const clash = await findClash(orgId, type, id, request.uniqueKeys);
        if (clash) throw uniquenessError(clash.attribute);
        const plan =
          request.members === undefined
            ? undefined
            : await planMembership(backend, orgId, id, { kind: "delta", add: request.members, remove: [] });
        if (plan) assertMembersAllowed(plan, request.unknownMembers);

        // Every check has passed. A real backend would send the writes below as one batch or
        // transaction (Redis MULTI, DynamoDB TransactWriteItems), so a crash cannot leave half.
        const record: ResourceRecord = {
          id,
          version: 1,
          created: request.now,
          lastModified: request.now,
          attributes: request.attributes,
          uniqueKeys: request.uniqueKeys,
          // `members` is present exactly when the type has members (CreateRequest.members).
          hasMembers: request.members !== undefined,
          nextMemberPosition: 0,
        };
        await backend.set(keys.typeOf(orgId, id), type);
        await indexRecord(orgId, type, record);
        const nextMemberPosition = plan ? await applyMembership(backend, orgId, id, plan, 0) : 0;
        const stored = await writeRecord(orgId, type, { ...record, nextMemberPosition });
        // CreateRequest has no `members` flag: a create that gives members gets them back.
        if (!plan) return { resource: storedResourceOf(stored) };
        return { resource: storedResourceOf(stored, plan.addedMembers), membership: changeOf(plan) };
      });
    },

    get(request) {
      const { orgId, resourceType: type, id } = request;
      return inOrganization(orgId, async () => {
        const record = await readRecord(orgId, type, id);
        if (!record) return undefined;
        return storedResourceOf(record, await membersFor(orgId, record, request.members));
      });
    },

    list(request) {
      const { orgId, resourceType: type, filter, sort } = request;
      return inOrganization(orgId, async () => {
        const order = sort?.order ?? "ascending";
        // Member lists are read for evaluation only when the answer depends on them.
        const needsMembers = (filter !== undefined && mentionsMembers(filter)) || (sort !== undefined && isMembersPath(sort.path));
        const ids = filter === undefined ? undefined : await indexCandidates({ backend, orgId, resourceType: type }, filter);
        const candidates = ids === undefined ? scanRecords(orgId, type) : readRecords(orgId, type, ids);

        const matches: Match[] = [];
        for await (const record of candidates) {
          const members = await membersFor(orgId, record, needsMembers);
          // `resourceView` is the JSON a client would see, so the filter and sort judge exactly that.
          const view = resourceView(type, storedResourceOf(record, members));
          if (filter !== undefined && !matchesFilter(view, filter)) continue;
          matches.push({ record, members, id: record.id, key: sort === undefined ? null : sortKeyOf(view, sort.path) });
        }

        const resources: StoredResource[] = [];
        for (const match of selectPage(matches, request.page, order)) {
          const members = request.members ? (match.members ?? (await membersFor(orgId, match.record, true))) : undefined;
          resources.push(storedResourceOf(match.record, members));
        }
        return { totalResults: matches.length, resources };
      });
    },

    update(request) {
      const { orgId, resourceType: type, id } = request;
      return inOrganization(orgId, async () => {
        const current = await readRecord(orgId, type, id);
        if (!current) return undefined;
        assertVersion(current, request.expectedVersion);
        // A JSON round trip: the store's own copy, in the form the stored record compares in.
        const attributes = request.attributes === undefined ? undefined : (JSON.parse(JSON.stringify(request.attributes)) as ScimObject);
        // Attributes equal to the stored ones are no write, so the version (and the client's ETag) stays.
        const newAttributes = attributes !== undefined && !isDeepStrictEqual(attributes, current.attributes) ? attributes : undefined;
        const uniqueKeys = newAttributes === undefined ? current.uniqueKeys : (request.uniqueKeys ?? []);
        if (newAttributes) {
          const clash = await findClash(orgId, type, id, uniqueKeys);
          if (clash) throw uniquenessError(clash.attribute);
        }
        if (request.membership !== undefined) assertHasMembers(type, current);
        const plan = request.membership === undefined ? undefined : await planMembership(backend, orgId, id, request.membership);
        if (plan) assertMembersAllowed(plan, request.unknownMembers);

        // Every check has passed: write (see the note on batches in `create`).
        let next = current;
        if (newAttributes) {
          await unindexRecord(orgId, type, current);
          next = { ...next, attributes: newAttributes, uniqueKeys };
          await indexRecord(orgId, type, next);
        }
        const membersChanged = plan !== undefined && changesMembers(plan);
        if (plan && membersChanged) {
          next = { ...next, nextMemberPosition: await applyMembership(backend, orgId, id, plan, current.nextMemberPosition) };
        }
        if (newAttributes || membersChanged) {
          next = await writeRecord(orgId, type, { ...next, version: current.version + 1, lastModified: request.now });
        }
        const resource = storedResourceOf(next, await membersFor(orgId, next, request.members));
        return plan ? { resource, membership: changeOf(plan) } : { resource };
      });
    },

    delete(request) {
      const { orgId, resourceType: type, id } = request;
      return inOrganization(orgId, async () => {
        const record = await readRecord(orgId, type, id);
        if (!record) return false;
        assertVersion(record, request.expectedVersion);
        const time = request.now ?? now();
        await unindexRecord(orgId, type, record);
        await backend.delete(keys.resource(orgId, type, id));
        await backend.delete(keys.typeOf(orgId, id));
        // A deleted group's own pairs go with it…
        for (const memberId of await memberIdsOf(backend, orgId, id)) await unlink(backend, orgId, id, memberId);
        // …and the deleted resource leaves every group that lists it, found by the reverse keys (architecture §3).
        for (const groupId of await groupsListing(backend, orgId, id)) {
          await unlink(backend, orgId, groupId, id);
          await touchGroup(orgId, groupId, time);
        }
        return true;
      });
    },
  };
}
