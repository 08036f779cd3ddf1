/**
 * The import walk (issue 29): an identity provider's full import of a target's users, every page of
 * 100 one after another on one connection — by `startIndex` (Okta's way) and by RFC 9865 cursor —
 * timed whole. Shared by `npm run bench` (a phase of every scimkit run) and `one-off/import-walk.ts`.
 */
import { scimGet } from "./control-client.js";
import type { RunningTarget } from "./target-process.js";

/** One walk through the whole list. */
export interface Walk {
  readonly pages: number;
  readonly resources: number;
  readonly totalMs: number;
  readonly pagesPerSecond: number;
  readonly slowestPageMs: number;
  readonly lastPageMs: number;
}

/** Both walks of one target. */
export interface ImportWalkResult {
  readonly pageSize: number;
  readonly byIndex: Walk;
  /** Absent where the target serves no cursor (the first page carried no `nextCursor` though it was full). */
  readonly byCursor?: Walk;
}

/** Walks the whole list: `next` gives each request's path from the page before; stops at the first short page or at totalResults. */
async function walk(
  target: RunningTarget,
  pageSize: number,
  next: (previous: Record<string, unknown> | undefined) => string | undefined,
): Promise<Walk> {
  let previous: Record<string, unknown> | undefined;
  let pages = 0;
  let resources = 0;
  let slowest = 0;
  let last = 0;
  const started = performance.now();
  for (let path = next(undefined); path !== undefined; path = next(previous)) {
    const before = performance.now();
    const { status, body } = await scimGet(target, path);
    last = performance.now() - before;
    slowest = Math.max(slowest, last);
    if (status !== 200 || !body) throw new Error(`${path} → ${status}`);
    const listed = Array.isArray(body["Resources"]) ? body["Resources"].length : 0;
    pages += 1;
    resources += listed;
    const total = Number(body["totalResults"]);
    // A short page ends the walk, and so does reaching totalResults (a full last page needs no
    // empty one after it); a walk past it would never end on a server that ignores the offset.
    if (Number.isFinite(total) && pages > Math.ceil(total / pageSize) + 1)
      throw new Error(`${path}: the walk went past totalResults (${total})`);
    previous = listed < pageSize || (Number.isFinite(total) && resources >= total) ? undefined : body;
    if (previous === undefined) break;
  }
  const totalMs = performance.now() - started;
  return { pages, resources, totalMs, pagesPerSecond: pages / (totalMs / 1000), slowestPageMs: slowest, lastPageMs: last };
}

/** Walks every user of `target` by `startIndex`, then by cursor. */
export async function importWalk(target: RunningTarget, pageSize = 100): Promise<ImportWalkResult> {
  const byIndex = await walk(target, pageSize, (previous) => {
    if (previous === undefined) return `/Users?startIndex=1&count=${pageSize}`;
    return `/Users?startIndex=${Number(previous["startIndex"]) + Number(previous["itemsPerPage"])}&count=${pageSize}`;
  });
  // A target that refuses the first cursor request, or answers a full first page without
  // `nextCursor`, serves no cursor (the table store may not): its walk is by startIndex alone.
  let asked = 0;
  let served = true;
  const byCursor = await walk(target, pageSize, (previous) => {
    asked += 1;
    if (previous === undefined) return `/Users?cursor=&count=${pageSize}`;
    const cursor = previous["nextCursor"];
    if (typeof cursor !== "string" && asked === 2 && byIndex.resources > pageSize) served = false;
    return typeof cursor === "string" ? `/Users?cursor=${encodeURIComponent(cursor)}&count=${pageSize}` : undefined;
  }).catch((error: unknown) => {
    if (asked > 1) throw error;
    served = false;
    return undefined;
  });
  return served && byCursor !== undefined ? { pageSize, byIndex, byCursor } : { pageSize, byIndex };
}

/** One line for the log: pages, users, total time, pages per second, slowest page. */
export function describeWalk(walked: Walk): string {
  return `${walked.pages} pages, ${walked.resources} users in ${(walked.totalMs / 1000).toFixed(1)} s (${walked.pagesPerSecond.toFixed(0)} pages/s, slowest page ${walked.slowestPageMs.toFixed(0)} ms, last ${walked.lastPageMs.toFixed(0)} ms)`;
}
