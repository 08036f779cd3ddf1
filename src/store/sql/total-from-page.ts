/**
 * The total a list page tells by itself (RFC 7644 §3.4.2.4: `totalResults` of a paged list), shared
 * by the SQL store and the table store.
 */
import type { ListRequest } from "../resource-store.js";

/**
 * The total a page tells by itself: a short page that starts at the beginning or holds at least
 * one row ends the list, so the total is its offset plus its length — no count query. `undefined`
 * when only counting can tell (a full page, or an empty page past the start).
 */
export function totalFromPage(page: ListRequest["page"], returned: number): number | undefined {
  if (returned >= page.count) return undefined;
  if (page.kind === "cursor") return page.after ? undefined : returned;
  const offset = Math.max(1, page.startIndex) - 1;
  return returned > 0 || offset === 0 ? offset + returned : undefined;
}
