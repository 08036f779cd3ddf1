/**
 * The `ResourceStore` over SQL (architecture §3): the memory store's semantics — the reference — as
 * shared Kysely queries, with every dialect difference behind `SqlDialect`. Each write is one
 * transaction: all of it happens, or (on a 409, 412 or 400) none of it.
 */
import type { StoreOptions } from "../store-options.js";
import { sql, type Kysely } from "kysely";
import { deepEqual } from "../../scim/deep-equal.js";
import type { MembershipDelta } from "../../scim/patch/membership-delta.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { changesMembers, planMembership, type MembershipPlan } from "../membership-plan.js";
import type { ResourceStore, StoredMember, StoreScope, UnknownMemberPolicy, WriteResult } from "../resource-store.js";
import { chunksOf } from "./chunks.js";
import { deleteScimOrganizationRows } from "./delete-scim-organization-rows.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { listResources } from "./list-resources.js";
import { lockRows } from "./lock-rows.js";
import { currentMemberIds, deleteMembers, findMemberTypes, insertMembers, readMembers } from "./member-rows.js";
import { resourceColumns, storedResourceOf, type ResourceRow } from "./resource-row.js";
import { preconditionFailedError, unknownMembersError } from "../store-errors.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { claimUniqueKeys, replaceUniqueKeys } from "./unique-key-rows.js";
import type { EventRecording, OutboxEvent } from "../event-outbox.js";
import type { TransactionWork } from "./dialects/sql-dialect.js";
import { appendEvents, sqlEventOutbox } from "./sql-event-outbox.js";

/** Options of `sqlResourceStore`. */
/** Options of `sqlResourceStore`: those every built-in store shares. */
export type SqlResourceStoreOptions = StoreOptions;

const NO_MEMBERS: ReadonlySet<string> = new Set();

function assertVersion(version: number | string, expected: string | undefined): void {
  // RFC 7644 §3.14: a failed precondition is 412, and nothing is written.
  if (expected !== undefined && expected !== String(version)) throw preconditionFailedError();
}

function assertMembersAllowed(plan: MembershipPlan, policy: UnknownMemberPolicy): void {
  if (policy === "reject" && plan.ignored.length > 0) throw unknownMembersError(plan.ignored);
}

/** The ids a membership write may add: these must be looked up (and locked) before the group. */
function idsToAdd(delta: MembershipDelta | undefined): readonly string[] {
  if (delta === undefined) return [];
  return delta.kind === "replace" ? delta.ids : delta.add;
}

function typedMembers(ids: readonly string[], types: ReadonlyMap<string, string>): StoredMember[] {
  return ids.flatMap((value) => {
    const type = types.get(value);
    return type === undefined ? [] : [{ value, type }];
  });
}

function externalIdOf(attributes: ScimObject): string | null {
  const value = attributes["externalId"];
  return typeof value === "string" ? value : null;
}

/**
 * A `ResourceStore` over `db`, whose tables the migrations have created. Locks are taken in one
 * order everywhere — members about to be referenced, then the row written, then (on delete) the
 * groups that lose it — so concurrent writers wait for each other instead of deadlocking.
 *
 * @example
 * const store = sqlResourceStore(db, postgresDialect);
 */
export function sqlResourceStore(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect, options: SqlResourceStoreOptions = {}): ResourceStore {
  const now = options.now ?? (() => new Date().toISOString());

  /**
   * Whether a resource carries `members` when they are asked for: it was created with `members`
   * (its type has members, `CreateRequest.members`) or given some since.
   */
  const hasMemberList = (row: Pick<ResourceRow, "member_seq">): boolean => row.member_seq !== null;

  const selectResource = (trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string) =>
    trx
      .selectFrom("scimkit_resources as r")
      .select(resourceColumns)
      .where("r.org_id", "=", scope.orgId)
      .where("r.resource_type", "=", scope.resourceType)
      .where("r.id", "=", id);

  /** Runs `operation`, turning database errors the client caused into `ScimError`s (`translateError`). */
  const translated = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      throw dialect.translateError ? dialect.translateError(error) : error;
    }
  };

  /**
   * Runs a write in one transaction with its events (`EventRecording`): built from what the write
   * produced, inserted last of all in the same transaction, and reported only after the commit.
   * `produced` says what the events are built from, or `undefined` when the write did nothing.
   */
  const writeWithEvents = async <R, E>(
    orgId: string,
    recording: EventRecording<E> | undefined,
    work: TransactionWork<R>,
    produced: (result: R) => E | undefined,
  ): Promise<R> => {
    let recorded: readonly OutboxEvent[] = [];
    const result = await translated(() =>
      dialect.writeTransaction(db, async (trx) => {
        // Reset on each attempt: a dialect may run `work` again after a deadlock.
        recorded = [];
        const value = await work(trx);
        const source = recording ? produced(value) : undefined;
        if (recording && source !== undefined) {
          recorded = await appendEvents(trx, dialect, orgId, recording.build(source), recording, now());
        }
        return value;
      }),
    );
    if (recording && produced(result) !== undefined) recording.committed(recorded);
    return result;
  };

  const membersOf = async (trx: Kysely<SqlStoreDatabase>, orgId: string, id: string): Promise<StoredMember[]> =>
    (await readMembers(trx, dialect, orgId, [id])).get(id) ?? [];

  return {
    capabilities: { sort: true, cursor: true },
    events: sqlEventOutbox(db, dialect, now),

    create(request) {
      return writeWithEvents(
        request.orgId,
        request.events,
        async (trx): Promise<WriteResult> => {
          const types = request.members?.length
            ? await findMemberTypes(trx, dialect, request.orgId, request.members)
            : new Map<string, string>();
          const membership =
            request.members === undefined
              ? undefined
              : planMembership(NO_MEMBERS, { kind: "delta", add: request.members, remove: [] }, (id) => types.has(id));
          const memberSeq = membership ? membership.added.length : null;
          // The core picks fresh UUIDs, so a taken id fails on the primary key: a bug, not a client error.
          await trx
            .insertInto("scimkit_resources")
            .values({
              org_id: request.orgId,
              id: request.id,
              resource_type: request.resourceType,
              version: 1,
              created: request.now,
              last_modified: request.now,
              external_id: externalIdOf(request.attributes),
              attributes: dialect.toJson(request.attributes),
              member_seq: memberSeq,
            })
            .execute();
          await dialect.indexResources?.(trx, { kind: "write", orgId: request.orgId, id: request.id, attributes: request.attributes });
          await claimUniqueKeys(trx, dialect, request, request.id, request.uniqueKeys);
          const resource = {
            id: request.id,
            version: "1",
            created: request.now,
            lastModified: request.now,
            // Through JSON, as a read would return it, and never the caller's own object.
            attributes: dialect.fromJson(dialect.toJson(request.attributes)),
          };
          if (!membership) return { resource };
          assertMembersAllowed(membership, request.unknownMembers);
          const members = typedMembers(membership.added, types);
          await insertMembers(trx, dialect, request.orgId, request.id, members, 1);
          // CreateRequest has no `members` flag: a create that gives members gets them back.
          return { resource: { ...resource, members }, membership };
        },
        (result) => result,
      );
    },

    get(request) {
      return translated(async () => {
        if (!request.members) {
          const row = await selectResource(db, request, request.id).executeTakeFirst();
          return row ? storedResourceOf(row, dialect) : undefined;
        }
        return dialect.readTransaction(db, async (trx) => {
          const row = await selectResource(trx, request, request.id).executeTakeFirst();
          if (!row) return undefined;
          if (!hasMemberList(row)) return storedResourceOf(row, dialect);
          return storedResourceOf(row, dialect, await membersOf(trx, request.orgId, row.id));
        });
      });
    },

    list(request) {
      return translated(() => listResources(db, dialect, request, hasMemberList));
    },

    update(request) {
      return writeWithEvents(
        request.orgId,
        request.events,
        async (trx): Promise<WriteResult | undefined> => {
          const { orgId, id, membership: delta } = request;
          // Members first, the group second: the lock order every writer follows.
          const adding = idsToAdd(delta);
          const types = adding.length > 0 ? await findMemberTypes(trx, dialect, orgId, adding) : new Map<string, string>();
          const row = await lockRows(selectResource(trx, request, id), dialect, "update").executeTakeFirst();
          if (!row) return undefined;
          assertVersion(row.version, request.expectedVersion);

          const stored = dialect.fromJson(row.attributes);
          // Attributes deep-equal to the stored ones are no write: version and lastModified stay.
          const attributes = request.attributes !== undefined && !deepEqual(request.attributes, stored) ? request.attributes : undefined;
          if (attributes) await replaceUniqueKeys(trx, dialect, request, id, request.uniqueKeys ?? []);

          let membership: MembershipPlan | undefined;
          const storedSeq = row.member_seq === null ? null : Number(row.member_seq);
          let memberSeq = storedSeq;
          if (delta) {
            // A delta reads only the ids it names; a replacement reads the ids it may remove.
            const named = delta.kind === "delta" ? [...delta.add, ...delta.remove] : undefined;
            const current = await currentMemberIds(trx, dialect, orgId, id, named);
            membership = planMembership(current, delta, (memberId) => types.has(memberId));
            assertMembersAllowed(membership, request.unknownMembers);
            await deleteMembers(trx, dialect, orgId, id, membership.removed);
            const first = (memberSeq ?? 0) + 1;
            await insertMembers(trx, dialect, orgId, id, typedMembers(membership.added, types), first);
            memberSeq = first - 1 + membership.added.length;
          }

          const changed = attributes !== undefined || (membership !== undefined && changesMembers(membership));
          const version = changed ? Number(row.version) + 1 : Number(row.version);
          const lastModified = changed ? request.now : row.last_modified;
          if (changed || memberSeq !== storedSeq) {
            await trx
              .updateTable("scimkit_resources")
              .set({
                version,
                last_modified: lastModified,
                member_seq: memberSeq,
                ...(attributes ? { attributes: dialect.toJson(attributes), external_id: externalIdOf(attributes) } : {}),
              })
              .where("org_id", "=", orgId)
              .where("id", "=", id)
              .execute();
            if (attributes) await dialect.indexResources?.(trx, { kind: "write", orgId, id, attributes, previous: stored });
          }

          const next: ResourceRow = {
            ...row,
            version,
            last_modified: lastModified,
            member_seq: memberSeq,
            ...(attributes ? { attributes: dialect.toJson(attributes) } : {}),
          };
          const members = request.members && hasMemberList(next) ? await membersOf(trx, orgId, id) : undefined;
          const resource = storedResourceOf(next, dialect, members);
          return membership ? { resource, membership } : { resource };
        },
        (result) => result,
      );
    },

    delete(request) {
      return writeWithEvents(
        request.orgId,
        request.events,
        async (trx) => {
          const { orgId, id } = request;
          // The delete lock waits for every transaction still adding this resource somewhere, and
          // keeps new ones out: they find it gone and ignore it, so no member row is orphaned.
          const row = await lockRows(
            trx
              .selectFrom("scimkit_resources as r")
              .select(["r.id", "r.version"])
              .where("r.org_id", "=", orgId)
              .where("r.resource_type", "=", request.resourceType)
              .where("r.id", "=", id),
            dialect,
            "delete",
          ).executeTakeFirst();
          if (!row) return false;
          assertVersion(row.version, request.expectedVersion);

          // A lost member is a write to the group: its ETag must change (RFC 7644 §3.14). Locked in
          // id order, so two deletes touching the same groups queue instead of deadlocking.
          const groups = await lockRows(
            trx
              .selectFrom("scimkit_resources as r")
              .select("r.id")
              .where("r.org_id", "=", orgId)
              .where("r.id", "in", (eb) =>
                eb.selectFrom("scimkit_members as m").select("m.group_id").where("m.org_id", "=", orgId).where("m.member_id", "=", id),
              )
              .orderBy("r.id"),
            dialect,
            "update",
          ).execute();
          for (const chunk of chunksOf(
            groups.map((group) => group.id),
            dialect.maxParameters - 2,
          )) {
            await trx
              .updateTable("scimkit_resources")
              .set({ version: sql<number>`version + 1`, last_modified: request.now ?? now() })
              .where("org_id", "=", orgId)
              .where("id", "in", chunk)
              .execute();
          }
          await dialect.indexResources?.(trx, { kind: "delete", orgId, id });
          // The foreign keys cascade: its unique keys, its own member rows, its rows in other groups.
          await trx.deleteFrom("scimkit_resources").where("org_id", "=", orgId).where("id", "=", id).execute();
          return true;
        },
        (deleted): true | undefined => (deleted ? true : undefined),
      );
    },

    deleteOrganization(orgId) {
      // One transaction: a reader sees the organization whole or gone, never half emptied.
      return translated(() => dialect.writeTransaction(db, (trx) => deleteScimOrganizationRows(trx, orgId, dialect)));
    },
  };
}
