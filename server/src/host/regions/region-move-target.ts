/**
 * The source's calls to the target of a move (issue 30, point 4): its channel
 * (`region-move-channel.ts`) at the operator's URL for the region, with the region key, and the
 * copy of one table's rows of the organization in pages the channel takes.
 */
import { readBoundedText } from "scimkit";
import { fetchPeer } from "./fetch-peer.js";
import { type OrganizationDatabase, type OrganizationRow, type OrganizationTable, organizationPages } from "./organization-tables.js";
import { MAX_MOVE_PAGE_ROWS } from "./region-move-channel.js";
import type { RegionMoveRecord } from "./region-move-book.js";

/** Bytes of rows sent in one page at most: well under the channel's bound. */
const PAGE_BYTES = 4 * 1024 * 1024;
/** How long one call to the target may take. */
const CALL_TIMEOUT_MS = 60_000;
/** The most bytes of a target's answer read (a digest is a few kilobytes). */
const ANSWER_BYTES = 1024 * 1024;

/** What the driver asks of a target. */
export interface RegionMoveTarget {
  /** Calls `to`'s channel at `path` (under `/regions/v1/moves`); the answer's JSON, or throws naming what failed. */
  call(to: string, method: string, path: string, body?: unknown): Promise<unknown>;
  /** Sends `table`'s rows of `record`'s organization to its target; resolves with how many. */
  copyTable(record: RegionMoveRecord, table: OrganizationTable): Promise<number>;
}

/** The calls over `options.database`, stopping between pages once `stopped()` says so. */
export function regionMoveTarget(options: {
  readonly database: OrganizationDatabase;
  readonly baseUrls: Readonly<Record<string, string>>;
  readonly key: string;
  readonly stopped: () => boolean;
}): RegionMoveTarget {
  const { database, baseUrls, key } = options;
  const orgPath = (orgId: string): string => `/${encodeURIComponent(orgId)}`;
  /** Calls the target's channel; the answer's JSON, or throws naming what failed. */
  async function callTarget(to: string, method: string, path: string, body?: unknown): Promise<unknown> {
    const url = `${baseUrls[to] ?? ""}/regions/v1/moves${path}`;
    const response = await fetchPeer(to, url, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const text = await readBoundedText(response, ANSWER_BYTES, "the target's answer");
    if (response.status >= 300) {
      let detail = text.slice(0, 300);
      try {
        detail = String((JSON.parse(text) as { detail?: unknown }).detail ?? detail);
      } catch {}
      throw new Error(`region ${to} answered ${method} ${path.split("?")[0]} with ${response.status}: ${detail}`);
    }
    return text === "" ? {} : (JSON.parse(text) as unknown);
  }

  /** Sends `table`'s rows of the organization to the target, in pages of at most `PAGE_BYTES`. */
  async function copyTable(record: RegionMoveRecord, table: OrganizationTable): Promise<number> {
    let sent = 0;
    const send = async (rows: OrganizationRow[]): Promise<void> => {
      // A host shutting down stops between pages; the copy resumes there on its next start.
      if (options.stopped()) throw new Error("the host is stopping");
      await callTarget(record.to, "POST", `${orgPath(record.orgId)}/rows`, { moveId: record.moveId, table: table.name, rows });
      sent += rows.length;
    };
    for await (const page of organizationPages(database, table, record.orgId, MAX_MOVE_PAGE_ROWS)) {
      let batch: OrganizationRow[] = [];
      let bytes = 0;
      for (const row of page) {
        const size = JSON.stringify(row).length;
        if (batch.length > 0 && bytes + size > PAGE_BYTES) {
          await send(batch);
          batch = [];
          bytes = 0;
        }
        batch.push(row);
        bytes += size;
      }
      if (batch.length > 0) await send(batch);
    }
    return sent;
  }
  return { call: callTarget, copyTable };
}
