/**
 * One page of a list already in list order: index paging (RFC 7644 §3.4.2.4) or keyset paging
 * behind RFC 9865 cursors.
 */
import { compareListEntries, type ListEntry } from "../../scim/list/sort-key.js";
import type { CursorPage, IndexPage } from "../resource-store.js";

/** The position of the first entry that comes strictly after `after` in `sorted`. */
function firstAfter(sorted: readonly ListEntry[], after: ListEntry, order: "ascending" | "descending"): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const entry = sorted[middle];
    if (entry && compareListEntries(entry, after, order) > 0) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * The entries of `page` from `sorted`, which is ordered by `compareListEntries` with `order`.
 * A cursor resumes after its position even when the resource there is gone: the position, not the
 * resource, marks the place (RFC 9865 §2).
 */
export function selectPage<T extends ListEntry>(
  sorted: readonly T[],
  page: IndexPage | CursorPage,
  order: "ascending" | "descending",
): readonly T[] {
  const count = Math.max(0, page.count);
  if (page.kind === "index") {
    // RFC 7644 §3.4.2.4: startIndex is 1-based; the core clamps it, and so does this, cheaply.
    const start = Math.max(1, page.startIndex) - 1;
    return sorted.slice(start, start + count);
  }
  const start = page.after === undefined ? 0 : firstAfter(sorted, page.after, order);
  return sorted.slice(start, start + count);
}
