/**
 * Keyset pages (`PageRequest` → `Page`): a store asks for one row more than the page holds, so
 * whether a next page exists is known without counting, and the next position is the key of
 * the page's last item.
 */
import type { Page, PageRequest } from "../analytics-store.js";

/** The rows to ask the database for: one more than `page.limit`. */
export function rowsToRead(page: PageRequest): number {
  return page.limit + 1;
}

/**
 * The page of `rows` (read with `rowsToRead(page)`): at most `page.limit` items and, when a row
 * was left over, `next` — the position `keyOf` gives the last item.
 *
 * @example pageOf(rows, page, organizationOf, (organization) => organization.id)
 */
export function pageOf<R, T>(rows: readonly R[], page: PageRequest, itemOf: (row: R) => T, keyOf: (item: T) => string): Page<T> {
  const items = rows.slice(0, page.limit).map(itemOf);
  const last = items[items.length - 1];
  return rows.length > page.limit && last !== undefined ? { items, next: keyOf(last) } : { items };
}
