/**
 * RFC 9865 cursors over the store's keyset paging: a cursor is the position (sort key and id) of
 * the last resource of a page, bound to the query it came from, so a cursor replayed with another
 * filter, sort or organization is refused with `invalidCursor` instead of giving a wrong page.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { ScimType, badRequest } from "../errors.js";
import type { SortKey } from "../scim/list/sort-key.js";
import type { SortPosition } from "../store/resource-store.js";

/** What a cursor is bound to: a change in any of these makes old cursors invalid. */
export interface CursorScope {
  readonly orgId: string;
  readonly resourceType: string;
  readonly filter: string;
  readonly sortBy: string;
  readonly sortOrder: string;
  /** The router's `cursorSecret`; empty by default. */
  readonly secret: string;
}

const MAX_CURSOR_LENGTH = 4096;

/**
 * A MAC over the query and the position, so neither can be changed without the cursor failing.
 * With the default empty secret it still catches edited and corrupted cursors; a configured
 * `cursorSecret` (the same in every process of a deployment) makes them unforgeable.
 */
function seal(scope: CursorScope, key: unknown, id: unknown, total: unknown): string {
  const text = JSON.stringify([scope.orgId, scope.resourceType, scope.filter, scope.sortBy, scope.sortOrder, key, id, total]);
  return createHmac("sha256", scope.secret).update(text).digest("base64url").slice(0, 22);
}

function isSortKey(value: unknown): value is SortKey {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** Where a cursor resumes, and the total the walk counted on its first page. */
export interface CursorState {
  readonly position: SortPosition;
  /**
   * `totalResults` as counted when the walk began: later pages report it instead of counting a
   * million rows again each time (RFC 9865 leaves the total of a changing set to the provider).
   */
  readonly total: number;
}

/** The cursor that continues after `state.position` for the query `scope`. */
export function encodeCursor(state: CursorState, scope: CursorScope): string {
  const { key, id } = state.position;
  return Buffer.from(JSON.stringify({ k: key, i: id, t: state.total, q: seal(scope, key, id, state.total) })).toString("base64url");
}

/** The state a client's cursor carries; 400 `invalidCursor` (RFC 9865 §2.4) when it is not ours or not for this query. */
export function decodeCursor(cursor: string, scope: CursorScope): CursorState {
  const invalid = badRequest(ScimType.invalidCursor, "The cursor is not valid for this query. Start again without a cursor value (cursor=) to get a new one.");
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid;
  }
  if (typeof decoded !== "object" || decoded === null) throw invalid;
  if (Object.keys(decoded).sort().join() !== "i,k,q,t") throw invalid;
  const { k, i, q, t } = decoded as Record<string, unknown>;
  if (!isSortKey(k) || typeof i !== "string" || typeof q !== "string" || typeof t !== "number" || !Number.isSafeInteger(t) || t < 0) throw invalid;
  const expected = Buffer.from(seal(scope, k, i, t));
  const given = Buffer.from(q);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
  return { position: { key: k, id: i }, total: t };
}
