/**
 * RFC 9865 cursors over the store's keyset paging: a cursor is the position (sort key and id) of
 * the last resource of a page, bound to the query it came from, so a cursor replayed with another
 * filter, sort or organization is refused with `invalidCursor` instead of giving a wrong page.
 */
import { ScimType, badRequest } from "../../errors.js";
import type { SortPosition } from "../../store/resource-store.js";
import { openCursor, sealCursor } from "./sealed-cursor.js";

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

/** Sort key, id and walk total: the fields of a SCIM cursor, in sealing order. */
const FIELDS = ["k", "i", "t"] as const;

function binding(scope: CursorScope): readonly unknown[] {
  return [scope.orgId, scope.resourceType, scope.filter, scope.sortBy, scope.sortOrder];
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
  return sealCursor(FIELDS, { k: key, i: id, t: state.total }, binding(scope), scope.secret);
}

/** The state a client's cursor carries; 400 `invalidCursor` (RFC 9865 §2.4) when it is not ours or not for this query. */
export function decodeCursor(cursor: string, scope: CursorScope): CursorState {
  const fields = openCursor(cursor, FIELDS, binding(scope), scope.secret);
  const k = fields?.["k"];
  const i = fields?.["i"];
  const t = fields?.["t"];
  if (fields === undefined || k === undefined || typeof i !== "string" || typeof t !== "number" || !Number.isSafeInteger(t) || t < 0) {
    throw badRequest(
      ScimType.invalidCursor,
      "The cursor is not valid for this query. Start again without a cursor value (cursor=) to get a new one.",
    );
  }
  return { position: { key: k, id: i }, total: t };
}
