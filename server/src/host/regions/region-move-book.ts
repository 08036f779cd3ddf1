/**
 * This host's side of every move of an organization between regions (issue 30, point 4), kept in
 * its database (`scimkit_region_moves`) and in memory: a step is recorded before the work it
 * names starts, so a host killed at any step finds it on start; and what a request needs to know
 * — are this organization's writes refused, has it left, is it still arriving — is read from
 * memory, never from the database, on every request.
 */
import type { AnalyticsDatabase, RegionMove, RegionMoveStep } from "@scimkit/server";
import type { Kysely } from "kysely";

/** A row of `scimkit_region_moves`. */
type RegionMovesTable = AnalyticsDatabase["scimkit_region_moves"];

/** The source's steps before the switch: writes are refused from `freezing` on. */
const FROZEN: ReadonlySet<RegionMoveStep> = new Set(["freezing", "copying", "verifying", "switching"]);
/** Steps after which a move is over: a new one of the organization may replace its row. */
export const FINAL_MOVE_STEPS: ReadonlySet<RegionMoveStep> = new Set(["done", "rolled-back", "home"]);
/** The source's steps from the switch on: the organization is the target's. */
const LEFT: ReadonlySet<RegionMoveStep> = new Set(["cleaning", "done"]);

/** What a request for an organization meets here because of a move. */
export type MoveGate =
  | { readonly kind: "frozen"; readonly to: string }
  | { readonly kind: "left"; readonly to: string }
  | { readonly kind: "arriving"; readonly from: string };

/** A move as recorded, with who asked. */
export interface RegionMoveRecord extends RegionMove {
  readonly requestedBy?: string;
}

/** The book of moves: persisted first, then known in memory. */
export interface RegionMoveBook {
  /** This host's region. */
  readonly self: string;
  /** The move of `orgId`, as last recorded. */
  get(orgId: string): RegionMoveRecord | undefined;
  /** Every move, the most recent first. */
  all(): readonly RegionMoveRecord[];
  /** Records `record` (replacing the organization's earlier one), then serves it. */
  put(record: RegionMoveRecord): Promise<void>;
  /**
   * Records a new move unless the database holds an unfinished one of the organization — written
   * by another process (the CLI) since this one last read it: then that row is read back, served,
   * and false returned. The database's row is the one that counts.
   */
  claim(record: RegionMoveRecord): Promise<boolean>;
  /**
   * Records `next` unless the database's row of the move has left `current`'s step meanwhile (the
   * CLI cancelled it): then the row is read back, served, and false returned.
   */
  advance(current: RegionMoveRecord, next: RegionMoveRecord): Promise<boolean>;
  /**
   * Reads the rows again and serves those written since by another process on the database
   * (`scimkit regions move|cancel`); resolves with the organizations whose move changed.
   */
  refresh(): Promise<readonly string[]>;
  /** Forgets the move of `orgId` (a target's copy dropped by a rollback). */
  remove(orgId: string): Promise<void>;
  /** What a request for `orgId` meets; undefined: nothing, it is served as usual. Reads nothing. */
  gate(orgId: string): MoveGate | undefined;
  /** Counts a write of `orgId` that passed the gate, until `done` is called. */
  enter(orgId: string): () => void;
  /** Resolves once no write of `orgId` that passed the gate is running. */
  settled(orgId: string): Promise<void>;
}

function recordOf(row: RegionMovesTable, self: string): RegionMoveRecord {
  const source = row.side === "source";
  return {
    orgId: row.org_id,
    moveId: row.move_id,
    side: source ? "source" : "target",
    from: source ? self : row.peer_region,
    to: source ? row.peer_region : self,
    step: row.step as RegionMoveStep,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    ...(row.requested_by === null ? {} : { requestedBy: row.requested_by }),
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
  };
}

function rowOf(record: RegionMoveRecord): RegionMovesTable {
  return {
    org_id: record.orgId,
    move_id: record.moveId,
    side: record.side,
    peer_region: record.side === "source" ? record.to : record.from,
    step: record.step,
    started_at: record.startedAt,
    updated_at: record.updatedAt,
    requested_by: record.requestedBy ?? null,
    last_error: record.lastError ?? null,
  };
}

/** The book as `db` holds it. */
export async function loadRegionMoveBook(db: Kysely<AnalyticsDatabase>, self: string): Promise<RegionMoveBook> {
  const records = new Map<string, RegionMoveRecord>();
  for (const row of await db.selectFrom("scimkit_region_moves").selectAll().execute()) records.set(row.org_id, recordOf(row, self));
  const running = new Map<string, number>();
  const waiting = new Map<string, Array<() => void>>();
  return {
    self,
    get: (orgId) => records.get(orgId),
    all: () => [...records.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.orgId.localeCompare(b.orgId)),
    async put(record) {
      const row = rowOf(record);
      await db
        .insertInto("scimkit_region_moves")
        .values(row)
        .onConflict((conflict) => conflict.column("org_id").doUpdateSet({ ...row }))
        .execute();
      records.set(record.orgId, record);
    },
    async claim(record) {
      const row = rowOf(record);
      const result = await db
        .insertInto("scimkit_region_moves")
        .values(row)
        .onConflict((conflict) =>
          conflict
            .column("org_id")
            .doUpdateSet({ ...row })
            .where("scimkit_region_moves.step", "in", [...FINAL_MOVE_STEPS]),
        )
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 1) {
        records.set(record.orgId, record);
        return true;
      }
      const held = await db.selectFrom("scimkit_region_moves").selectAll().where("org_id", "=", record.orgId).executeTakeFirst();
      if (held !== undefined) records.set(held.org_id, recordOf(held, self));
      return false;
    },
    async advance(current, next) {
      const result = await db
        .updateTable("scimkit_region_moves")
        .set(rowOf(next))
        .where("org_id", "=", current.orgId)
        .where("move_id", "=", current.moveId)
        .where("step", "=", current.step)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) {
        records.set(next.orgId, next);
        return true;
      }
      const row = await db.selectFrom("scimkit_region_moves").selectAll().where("org_id", "=", current.orgId).executeTakeFirst();
      if (row === undefined) records.delete(current.orgId);
      else records.set(row.org_id, recordOf(row, self));
      return false;
    },
    async refresh() {
      const changed: string[] = [];
      for (const row of await db.selectFrom("scimkit_region_moves").selectAll().execute()) {
        const known = records.get(row.org_id);
        // Only what is newer than this process's own: a read that raced its write is stale.
        if (known !== undefined && (known.moveId === row.move_id ? row.updated_at <= known.updatedAt : row.started_at <= known.startedAt))
          continue;
        records.set(row.org_id, recordOf(row, self));
        changed.push(row.org_id);
      }
      return changed;
    },
    async remove(orgId) {
      await db.deleteFrom("scimkit_region_moves").where("org_id", "=", orgId).execute();
      records.delete(orgId);
    },
    gate(orgId) {
      const record = records.get(orgId);
      if (record === undefined) return undefined;
      if (record.side === "target") return record.step === "arriving" ? { kind: "arriving", from: record.from } : undefined;
      if (FROZEN.has(record.step)) return { kind: "frozen", to: record.to };
      if (LEFT.has(record.step)) return { kind: "left", to: record.to };
      return undefined;
    },
    enter(orgId) {
      running.set(orgId, (running.get(orgId) ?? 0) + 1);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        const count = (running.get(orgId) ?? 1) - 1;
        if (count > 0) {
          running.set(orgId, count);
          return;
        }
        running.delete(orgId);
        for (const wake of waiting.get(orgId)?.splice(0) ?? []) wake();
        waiting.delete(orgId);
      };
    },
    settled(orgId) {
      if (!running.has(orgId)) return Promise.resolve();
      return new Promise((resolve) => {
        const list = waiting.get(orgId) ?? [];
        list.push(resolve);
        waiting.set(orgId, list);
      });
    },
  };
}
