/**
 * The one list order and its two kinds of page (RFC 7644 §3.4.2.3, §3.4.2.4, RFC 9865), for a
 * store that has its matches in hand. The order is scimkit's (`compareListEntries`), never the
 * backend's key order, so every store lists alike and cursors stay valid across stores.
 */
import { compareListEntries, type CursorPage, type IndexPage, type ListEntry } from "scimkit/store";

/**
 * Sorts `entries` into list order and cuts out `page`. An index page is a 1-based window; a
 * cursor page is what comes strictly after the previous page's last position, whether or not
 * the resource there still exists, so writes between pages never repeat or skip a resource
 * that stayed.
 */
export function selectPage<T extends ListEntry>(
  entries: readonly T[],
  page: IndexPage | CursorPage,
  order: "ascending" | "descending",
): readonly T[] {
  const sorted = [...entries].sort((a, b) => compareListEntries(a, b, order));
  const count = Math.max(0, page.count);
  if (page.kind === "index") {
    const start = Math.max(1, page.startIndex) - 1;
    return sorted.slice(start, start + count);
  }
  const { after } = page;
  const rest = after === undefined ? sorted : sorted.filter((entry) => compareListEntries(entry, after, order) > 0);
  return rest.slice(0, count);
}
