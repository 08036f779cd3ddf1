/**
 * The opaque `cursor` of the analytics lists: the store's keyset position (`Page.next`) sealed
 * with the query it belongs to — operation, path parameters and filters, not `limit` — so a
 * cursor that was edited, or replayed with other filters, is refused as `invalid-cursor` instead
 * of giving a page of some other list.
 */
import { openCursor, sealCursor } from "scimkit/cursor";
import { invalidCursor } from "./analytics-problem.js";
import type { PageRequest } from "./analytics-store.js";

/** The query a cursor is bound to. */
export interface CursorBinding {
  readonly operationId: string;
  readonly params: Readonly<Record<string, string>>;
  /** The validated query; `limit` and `cursor` are not part of the binding. */
  readonly query: Readonly<Record<string, unknown>>;
  /** The router's `cursorSecret`. */
  readonly secret: string;
}

/** The default page size when the query gives no `limit`. */
export const DEFAULT_LIMIT = 50;
const FIELDS = ["a"] as const;

function bindingOf(binding: CursorBinding): readonly unknown[] {
  const sorted = (record: Readonly<Record<string, unknown>>): unknown[] =>
    Object.keys(record)
      .filter((name) => name !== "limit" && name !== "cursor")
      .sort()
      .map((name) => [name, record[name]]);
  return ["analytics", binding.operationId, sorted(binding.params), sorted(binding.query)];
}

/** The page the query asks for; throws `invalid-cursor` for a cursor that is not this query's. */
export function pageRequestOf(binding: CursorBinding): PageRequest {
  const limit = typeof binding.query["limit"] === "number" ? binding.query["limit"] : DEFAULT_LIMIT;
  const cursor = binding.query["cursor"];
  // An empty cursor means "from the start", as in RFC 9865 §2.
  if (typeof cursor !== "string" || cursor === "") return { limit };
  const fields = openCursor(cursor, FIELDS, bindingOf(binding), binding.secret);
  const after = fields?.["a"];
  if (typeof after !== "string") throw invalidCursor();
  return { limit, after };
}

/** The cursor of the page after the one that ended at `next`; null on the last page. */
export function nextCursorOf(binding: CursorBinding, next: string | undefined): string | null {
  return next === undefined ? null : sealCursor(FIELDS, { a: next }, bindingOf(binding), binding.secret);
}
