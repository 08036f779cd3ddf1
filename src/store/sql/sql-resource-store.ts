/**
 * The `ResourceStore` over SQL (architecture §3): the memory store's semantics — the reference — as
 * shared Kysely queries, with every dialect difference behind `SqlDialect`. Each write is one
 * transaction: all of it happens, or (on a 409, 412 or 400) none of it. The transactions
 * themselves are in resource-row-writes.ts.
 */
import type { Kysely } from "kysely";
import type { ResourceStore, UpdateRequest, WriteResult } from "../resource-store.js";
import type { StoreOptions } from "../store-options.js";
import { deleteScimOrganizationRows } from "./delete-scim-organization-rows.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { listResources } from "./list-resources.js";
import { rememberedPositions } from "../remembered-positions.js";
import { type BatchBounds, keyedBatches, settle, type Settled } from "./keyed-batches.js";
import { storedResourceOf } from "./resource-row.js";
import { createResourceRow, deleteResourceRow, updateResourceRow } from "./resource-row-writes.js";
import { isBatchableMemberDelta, updateMembershipBatch } from "./update-membership-batch.js";
import { canUpdateAtReadVersion, isUnsettled, updateAtReadVersion } from "./update-at-read-version.js";
import { hasMemberList, membersOf, readResourceRow } from "./select-resource.js";
import { sqlEventOutbox } from "./sql-event-outbox.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { withTranslatedErrors } from "./with-translated-errors.js";
import { writeAllWithEvents, writeWithEvents } from "./write-with-events.js";

/**
 * How many member deltas of one group one transaction writes: at most 64, naming at most 20,000
 * ids between them (the router's default `maxMembers` for one request), so a batch holds the
 * group's lock — and SQLite's one writer — about as long as one large request would.
 */
const MEMBER_BATCH: BatchBounds<UpdateRequest> = {
  maxItems: 64,
  maxWeight: 20_000,
  weight: (request) => (request.membership?.kind === "delta" ? request.membership.add.length + request.membership.remove.length : 1),
};

/** Options of `sqlResourceStore`: those every built-in store shares. */
export type SqlResourceStoreOptions = StoreOptions;

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
  // Per store, in this process: another process's writes move the generation these are checked against.
  const positions = rememberedPositions();

  const write = (at: UpdateRequest) =>
    writeWithEvents(
      db,
      dialect,
      now,
      at.orgId,
      at.events,
      (trx) => (canUpdateAtReadVersion(dialect, at) ? updateAtReadVersion(trx, dialect, at) : updateResourceRow(trx, dialect, at)),
      (result) => result,
    );
  async function updateAlone(request: UpdateRequest): Promise<WriteResult | undefined> {
    try {
      return await write(request);
    } catch (error) {
      if (!isUnsettled(error)) throw error;
      // Rolled back: the general path reads the row and decides (404, 412, 409, or the write).
      const { read: _read, ...reading } = request;
      return write(reading);
    }
  }
  // Concurrent member deltas of one group, one transaction per batch (update-membership-batch.ts).
  const memberDeltas = keyedBatches<UpdateRequest, WriteResult | undefined>(async (requests) => {
    if (requests.length === 1) return [await settle(updateAlone(requests[0] as UpdateRequest))];
    const [first] = requests as [UpdateRequest];
    try {
      const results = await writeAllWithEvents(
        db,
        dialect,
        now,
        first.orgId,
        requests.map((request) => request.events),
        (trx) => updateMembershipBatch(trx, dialect, requests),
        (result) => result,
      );
      return results.map((value) => ({ ok: true, value }));
    } catch {
      // Rolled back whole: each request alone gets exactly the answer it would have had (a 400 for
      // its unknown members, the database's error), and the others still land.
      const settled: Settled<WriteResult | undefined>[] = [];
      for (const request of requests) settled.push(await settle(updateAlone(request)));
      return settled;
    }
  }, MEMBER_BATCH);

  return {
    capabilities: { sort: true, cursor: true },
    events: sqlEventOutbox(db, dialect, now),

    create(request) {
      return writeWithEvents(
        db,
        dialect,
        now,
        request.orgId,
        request.events,
        (trx) => createResourceRow(trx, dialect, request),
        (result) => result,
      );
    },

    get(request) {
      return withTranslatedErrors(dialect, async () => {
        if (!request.members) {
          const row = await readResourceRow(db, dialect, request, request.id);
          return row ? storedResourceOf(row, dialect) : undefined;
        }
        return dialect.readTransaction(db, async (trx) => {
          const row = await readResourceRow(trx, dialect, request, request.id);
          if (!row) return undefined;
          if (!hasMemberList(row)) return storedResourceOf(row, dialect);
          return storedResourceOf(row, dialect, await membersOf(trx, dialect, request.orgId, row.id));
        });
      });
    },

    list(request) {
      return withTranslatedErrors(dialect, () =>
        listResources(db, dialect, request, hasMemberList, dialect.listGenerations === false ? undefined : positions),
      );
    },

    update(request) {
      if (!isBatchableMemberDelta(request)) return updateAlone(request);
      // Length-prefixed, so no organization id can make two scopes' keys equal.
      return memberDeltas.submit(`${request.orgId.length}:${request.orgId}${request.resourceType}/${request.id}`, request);
    },

    delete(request) {
      return writeWithEvents(
        db,
        dialect,
        now,
        request.orgId,
        request.events,
        (trx) => deleteResourceRow(trx, dialect, request, now),
        (deleted): true | undefined => (deleted ? true : undefined),
      );
    },

    deleteOrganization(orgId) {
      positions.forget(orgId);
      // One transaction: a reader sees the organization whole or gone, never half emptied.
      return withTranslatedErrors(dialect, () => dialect.writeTransaction(db, (trx) => deleteScimOrganizationRows(trx, orgId, dialect)));
    },
  };
}
