/**
 * Asking for a move and for its rollback (issue 30, point 4) — what the operator API and
 * `scimkit regions move|cancel` share: each check made before anything is recorded, the refusal
 * an operator can act on, and the record the source's driver then runs (`region-move-driver.ts`;
 * a host picks up a record the CLI wrote within a second, `RegionMoveBook.refresh`).
 */
import { randomUUID } from "node:crypto";
import type { RegionMove, RegionMoveRefusal, RegionMoveStep } from "@scimkit/server";
import { sql } from "kysely";
import type { OrganizationDatabase } from "./organization-tables.js";
import { FINAL_MOVE_STEPS, type RegionMoveBook, type RegionMoveRecord } from "./region-move-book.js";

/** The source's steps a rollback may start from: before the switch. */
const CANCELLABLE: ReadonlySet<RegionMoveStep> = new Set(["requested", "freezing", "copying", "verifying"]);

/** A move as the operator sees it: who asked stays in the record. */
export function publicMove(record: RegionMoveRecord): RegionMove {
  const { requestedBy: _requestedBy, ...move } = record;
  return move;
}

/** Where `orgId` sits in this region's tree of organizations; undefined when this region does not hold it. */
export async function organizationPlace(
  database: OrganizationDatabase,
  orgId: string,
): Promise<{ readonly parentId: string | null; readonly children: number } | undefined> {
  const row = (
    await sql<{ parent_id: string | null }>`select parent_id from scimkit_organizations where id = ${orgId}`.execute(database.db)
  ).rows[0];
  if (row === undefined) return undefined;
  const children = (
    await sql<{ n: number | string }>`select count(*) as n from scimkit_organizations where parent_id = ${orgId}`.execute(database.db)
  ).rows[0];
  return { parentId: row.parent_id, children: Number(children?.n ?? 0) };
}

/** Records a move of `orgId` to `to`, or says why not; nothing is recorded on a refusal. */
export async function requestMove(
  context: { readonly book: RegionMoveBook; readonly database: OrganizationDatabase; readonly baseUrls: Readonly<Record<string, string>> },
  request: { readonly orgId: string; readonly to: string; readonly requestedBy?: string; readonly at: string },
): Promise<RegionMoveRecord | RegionMoveRefusal> {
  const { book, database, baseUrls } = context;
  const { orgId, to } = request;
  if (to === book.self || baseUrls[to] === undefined) {
    const others = Object.keys(baseUrls)
      .filter((region) => region !== book.self)
      .sort();
    return { status: 400, detail: `to is the region to move to: one of ${others.join(", ")} (this host serves ${book.self})` };
  }
  const known = book.get(orgId);
  if (known !== undefined && !FINAL_MOVE_STEPS.has(known.step)) {
    return { status: 409, detail: `organization ${orgId} is in a move already (${known.from} to ${known.to}, ${known.step})` };
  }
  const place = await organizationPlace(database, orgId);
  if (place === undefined) {
    return { status: 404, detail: `there is no organization ${orgId} in region ${book.self}: a move starts at its home region's host` };
  }
  if (place.parentId !== null || place.children > 0) {
    const why = place.parentId !== null ? `its parent is ${place.parentId}` : `it has ${place.children} child organization(s)`;
    return {
      status: 409,
      detail: `organization ${orgId} is part of a tree (${why}): a move takes one organization on its own; detach it first`,
    };
  }
  const record: RegionMoveRecord = {
    orgId,
    moveId: randomUUID(),
    side: "source",
    from: book.self,
    to,
    step: "requested",
    startedAt: request.at,
    updatedAt: request.at,
    ...(request.requestedBy === undefined ? {} : { requestedBy: request.requestedBy }),
  };
  if (!(await book.claim(record))) {
    const held = book.get(orgId);
    return {
      status: 409,
      detail: `organization ${orgId} is in a move already (${held?.from ?? "?"} to ${held?.to ?? "?"}, ${held?.step ?? "?"})`,
    };
  }
  return record;
}

/**
 * Records the rollback of `orgId`'s move, or says why not. Writes resume at once (the gate
 * freezes no `rolling-back` move); the target is told to drop its copy in the background.
 */
export async function requestCancel(book: RegionMoveBook, orgId: string, at: string): Promise<RegionMoveRecord | RegionMoveRefusal> {
  const record = book.get(orgId);
  if (record === undefined || record.side !== "source" || FINAL_MOVE_STEPS.has(record.step)) {
    return { status: 404, detail: `organization ${orgId} is not moving out of region ${book.self}` };
  }
  if (record.step === "rolling-back") return record;
  if (!CANCELLABLE.has(record.step)) {
    return {
      status: 409,
      detail: `the move of ${orgId} is at ${record.step}: ${record.to} holds it now or is taking it, so it is finished, not rolled back`,
    };
  }
  // The last step's error is not the rollback's.
  const { lastError: _lastError, ...rest } = record;
  const cancelled: RegionMoveRecord = { ...rest, step: "rolling-back", updatedAt: at };
  // Conditional, so a step the host recorded meanwhile is not overwritten: then it is asked again.
  if (!(await book.advance(record, cancelled))) return requestCancel(book, orgId, at);
  return cancelled;
}
