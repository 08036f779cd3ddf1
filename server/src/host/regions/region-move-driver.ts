/**
 * The source's half of a move (issue 30, point 4): the state machine that moves an organization
 * homed here to another region, one recorded step at a time (`RegionMoveBook`), driving the
 * target through its channel (`region-move-channel.ts`). Every step can be run again: a host
 * killed anywhere resumes its moves on start at the step recorded last, and a failed step (the
 * target down, a digest that differs) is retried, with a growing pause, until it passes or the
 * operator cancels the move.
 *
 * 1. `requested` → `freezing`: from here on the gate refuses the organization's writes (503).
 * 2. `freezing` → `copying`: once the writes that passed before have finished.
 * 3. `copying` → `verifying`: every table's rows, in key order, pages upserted at the target.
 * 4. `verifying` → `switching`: per-table counts and digests equal on both sides; otherwise the
 *    target's rows are dropped and the copy starts again.
 * 5. `switching` → `cleaning`: the tables that background work still changes (token use, event
 *    delivery, the provisioning log) copied once more, then the target commits: it serves the
 *    organization, and this host answers 421 naming it.
 * 6. `cleaning` → `done`: this host deletes the organization's rows; its audit trail keeps the move.
 * Before the switch, `cancel` rolls back: the target drops its copy, writes resume here.
 */
import { isRegionMoveRefusal, type RegionMove, type RegionMoveRefusal, type RegionMoves, type RegionMoveStep } from "@scimkit/server";
import type { AuditTrail } from "scimkit/audit";
import {
  deleteOrganizationTables,
  digestOrganization,
  ORGANIZATION_TABLES,
  type OrganizationDatabase,
  type TableDigest,
} from "./organization-tables.js";
import { FINAL_MOVE_STEPS, type RegionMoveBook, type RegionMoveRecord } from "./region-move-book.js";
import { regionMoveTarget } from "./region-move-target.js";
import { organizationPlace, publicMove, requestCancel, requestMove } from "./region-move-requests.js";

/** The pause before a failed step is tried again, doubling up to the last. */
const RETRY_MS = [250, 500, 1000, 2000, 4000, 8000, 15_000, 30_000] as const;

/** The driver: what the operator API asks, and its background work. */
export interface RegionMoveDriver extends RegionMoves {
  /** Resumes every unfinished move of this host (on start), and picks up those the CLI records from then on. */
  resume(): void;
  /** Stops retrying; a step running finishes. */
  stop(): Promise<void>;
}

/** What the driver needs of the host. */
export interface RegionMoveDriverOptions {
  readonly book: RegionMoveBook;
  readonly database: OrganizationDatabase;
  /** Every region's public base URL. */
  readonly baseUrls: Readonly<Record<string, string>>;
  /** `SCIMKIT_REGION_KEY`. */
  readonly key: string;
  readonly audit?: AuditTrail;
  /** The least time each step takes (`SCIMKIT_REGION_MOVE_STEP_MS`), for rehearsing a move; default 0. */
  readonly stepMs?: number;
  readonly log?: (line: string) => void;
  readonly now?: () => Date;
  /**
   * Writes what this process's provisioning log holds of `orgId` in its buffer, so every entry
   * is in the database before the copy reads the log and before the cleanup deletes it.
   */
  readonly flushLog?: (orgId: string) => Promise<void>;
  /** Milliseconds between two reads of the moves another process recorded (`scimkit regions`); default 1,000. */
  readonly pollMs?: number;
}

/** A step's outcome: the next step, and why it is not the usual one. */
interface StepOutcome {
  readonly step: RegionMoveStep;
  readonly note?: string;
}

/** The driver over `options.book`. */
export function regionMoveDriver(options: RegionMoveDriverOptions): RegionMoveDriver {
  const { book, database, baseUrls, key } = options;
  const now = options.now ?? (() => new Date());
  const log = options.log ?? (() => {});
  const running = new Map<string, Promise<void>>();
  const retries = new Map<string, { timer: NodeJS.Timeout; attempt: number }>();
  let stopped = false;
  let poller: NodeJS.Timeout | undefined;

  const target = regionMoveTarget({ database, baseUrls, key, stopped: () => stopped });
  const callTarget = target.call;
  const copyTable = target.copyTable;
  const orgPath = (orgId: string): string => `/${encodeURIComponent(orgId)}`;

  /** Runs the step `record` is at; resolves with the next. */
  async function runStep(record: RegionMoveRecord): Promise<StepOutcome> {
    const { orgId, to, moveId } = record;
    switch (record.step) {
      case "requested":
        if ((await organizationPlace(database, orgId)) === undefined)
          throw new Error(`organization ${orgId} is not in this region's database`);
        return { step: "freezing" };
      case "freezing":
        // The gate refuses new writes since this step was recorded; those that passed before finish.
        await book.settled(orgId);
        await options.flushLog?.(orgId);
        return { step: "copying" };
      case "copying": {
        await callTarget(to, "POST", `${orgPath(orgId)}/begin`, { moveId, from: book.self });
        let rows = 0;
        for (const table of ORGANIZATION_TABLES) if (!table.atSwitch) rows += await copyTable(record, table);
        log(`move ${moveId}: ${orgId} copied to ${to}, ${rows} rows`);
        return { step: "verifying" };
      }
      case "verifying": {
        const local = await digestOrganization(database, orgId);
        const answer = (await callTarget(to, "GET", `${orgPath(orgId)}/digest?moveId=${encodeURIComponent(moveId)}`)) as {
          tables?: Record<string, TableDigest>;
        };
        const differing = Object.keys(local).filter(
          (name) => local[name]?.rows !== answer.tables?.[name]?.rows || local[name]?.sha256 !== answer.tables?.[name]?.sha256,
        );
        if (differing.length === 0) return { step: "switching" };
        // A row the copy missed or one it should not hold: the target starts from nothing again.
        await callTarget(to, "DELETE", `${orgPath(orgId)}?moveId=${encodeURIComponent(moveId)}&keep=move`);
        return { step: "copying", note: `the target's copy differed in ${differing.join(", ")}: copying again` };
      }
      case "switching": {
        // What changed since the copy though writes were frozen: a token's last use, event delivery, the log of reads.
        await options.flushLog?.(orgId);
        for (const table of ORGANIZATION_TABLES) if (table.volatile || table.appendOnly || table.atSwitch) await copyTable(record, table);
        await callTarget(to, "POST", `${orgPath(orgId)}/commit`, { moveId });
        log(`move ${moveId}: ${orgId} is homed in ${to} now`);
        return { step: "cleaning" };
      }
      case "cleaning": {
        // A child given to it meanwhile (the CLI on the database) would keep its row: the operator detaches it, then this step passes.
        const place = await organizationPlace(database, orgId);
        if (place !== undefined && place.children > 0) {
          throw new Error(
            `organization ${orgId} was given ${place.children} child organization(s) during the move: detach them (scimkit orgs set <child> --parent none); the move then finishes`,
          );
        }
        // Requests logged between the last copy and the switch were answered from the data copied.
        await options.flushLog?.(orgId);
        await deleteOrganizationTables(database, orgId);
        // After the delete, which takes the organization's audit entries with the rest of its data;
        // once, though a kill after it runs this step again.
        const kept = (await options.audit?.list(orgId, { limit: 20 })) ?? [];
        const recorded = kept.some((entry) => entry.operation === "region.moveOut" && entry.at >= record.updatedAt);
        if (!recorded)
          await options.audit?.record({
            orgId,
            operation: "region.moveOut",
            resourceType: "Organization",
            resourceId: orgId,
            at: now().toISOString(),
            outcome: "success",
            status: 200,
            via: "region",
            target: baseUrls[to] ?? to,
            ...(record.requestedBy === undefined ? {} : { tokenId: record.requestedBy }),
          });
        return { step: "done" };
      }
      case "rolling-back":
        await callTarget(to, "DELETE", `${orgPath(orgId)}?moveId=${encodeURIComponent(moveId)}`);
        log(`move ${moveId}: ${orgId} rolled back; it stays in ${book.self}`);
        return { step: "rolled-back" };
      default:
        throw new Error(`no step ${record.step} on the source`);
    }
  }

  /** Runs `orgId`'s move until it is over or a step fails (then a retry is scheduled). */
  async function drive(orgId: string): Promise<void> {
    for (;;) {
      const record = book.get(orgId);
      if (stopped || record === undefined || record.side !== "source" || FINAL_MOVE_STEPS.has(record.step)) {
        retries.delete(orgId);
        return;
      }
      let outcome: StepOutcome;
      try {
        outcome = await runStep(record);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const current = book.get(orgId);
        if (current?.moveId === record.moveId && current.step === record.step) {
          await book.advance(current, { ...current, updatedAt: now().toISOString(), lastError: reason.slice(0, 500) }).catch(() => false);
        }
        const attempt = (retries.get(orgId)?.attempt ?? 0) + 1;
        log(`move ${record.moveId}: ${orgId} step ${record.step} failed (attempt ${attempt}): ${reason}`);
        if (!stopped) {
          const timer = setTimeout(() => kick(orgId), RETRY_MS[Math.min(attempt, RETRY_MS.length) - 1]);
          timer.unref();
          retries.set(orgId, { timer, attempt });
        }
        return;
      }
      retries.delete(orgId);
      const current = book.get(orgId);
      // Cancelled while the step ran: the rollback is the next step, not this one's.
      if (current?.moveId !== record.moveId || current.step !== record.step) continue;
      const { lastError: _lastError, ...rest } = current;
      const next = { ...rest, step: outcome.step, updatedAt: now().toISOString(), ...(outcome.note ? { lastError: outcome.note } : {}) };
      // The CLI cancelled it meanwhile: the row read back is the next step.
      if (!(await book.advance(current, next))) continue;
      if (options.stepMs) await new Promise((resolve) => setTimeout(resolve, options.stepMs));
    }
  }

  function kick(orgId: string): void {
    if (stopped || running.has(orgId)) return;
    const pending = retries.get(orgId);
    if (pending) clearTimeout(pending.timer);
    const run = drive(orgId)
      .catch((error: unknown) => log(`move of ${orgId}: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => running.delete(orgId));
    running.set(orgId, run);
  }

  return {
    async start(orgId, to, requestedBy): Promise<RegionMove | RegionMoveRefusal> {
      const result = await requestMove(
        { book, database, baseUrls },
        { orgId, to, at: now().toISOString(), ...(requestedBy === undefined ? {} : { requestedBy }) },
      );
      if (isRegionMoveRefusal(result)) return result;
      kick(orgId);
      return publicMove(result);
    },
    async cancel(orgId) {
      const result = await requestCancel(book, orgId, now().toISOString());
      if (isRegionMoveRefusal(result)) return result;
      kick(orgId);
      return publicMove(result);
    },
    list: async () => book.all().map(publicMove),
    async get(orgId) {
      const record = book.get(orgId);
      return record === undefined ? undefined : publicMove(record);
    },
    resume() {
      for (const record of book.all()) if (record.side === "source" && !FINAL_MOVE_STEPS.has(record.step)) kick(record.orgId);
      // Moves the CLI asked for, or cancelled, in this region's database.
      poller ??= setInterval(() => {
        book.refresh().then(
          (changed) => {
            for (const orgId of changed) kick(orgId);
          },
          (error: unknown) => log(`moves: reading the database's moves failed: ${error instanceof Error ? error.message : String(error)}`),
        );
      }, options.pollMs ?? 1000);
      poller.unref();
    },
    async stop() {
      stopped = true;
      if (poller) clearInterval(poller);
      for (const { timer } of retries.values()) clearTimeout(timer);
      retries.clear();
      await Promise.all([...running.values()]);
    },
  };
}
