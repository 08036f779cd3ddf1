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
import { storedResourceOf } from "./resource-row.js";
import { createResourceRow, deleteResourceRow, updateResourceRow } from "./resource-row-writes.js";
import { isBatchableMemberDelta, memberDeltaBatches } from "./update-membership-batch.js";
import { canUpdateAtReadVersion, isUnsettled, updateAtReadVersion } from "./update-at-read-version.js";
import { hasMemberList, membersOf, readResourceRow } from "./select-resource.js";
import { sqlEventOutbox } from "./sql-event-outbox.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { withTranslatedErrors } from "./with-translated-errors.js";
import { writeWithEvents } from "./write-with-events.js";

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
  const memberDeltas = memberDeltaBatches(db, dialect, now, updateAlone);

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
      return isBatchableMemberDelta(request) ? memberDeltas.submit(request) : updateAlone(request);
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
