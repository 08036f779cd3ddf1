/**
 * Keyset paging over records the memory analytics store has already put in list order.
 */
import type { Page, PageRequest } from "../analytics-store.js";

/** Compares list keys by UTF-16 code unit, the order SQL stores get with `COLLATE "C"`. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The page of `ordered` (sorted by `keyOf`, ascending, keys unique) after `page.after`: at most
 * `page.limit` items, with `next` only when more follow, so the last page never has one.
 */
export function keysetPage<T, R = T>(
  ordered: readonly T[],
  keyOf: (item: T) => string,
  page: PageRequest,
  render: (item: T) => R,
): Page<R> {
  const after = page.after;
  const start = after === undefined ? 0 : firstAfter(ordered, keyOf, after);
  const slice = ordered.slice(start, start + page.limit);
  const last = slice[slice.length - 1];
  const items = slice.map(render);
  return last !== undefined && start + slice.length < ordered.length ? { items, next: keyOf(last) } : { items };
}

/** The index of the first item whose key is greater than `after` (binary search). */
function firstAfter<T>(ordered: readonly T[], keyOf: (item: T) => string, after: string): number {
  let low = 0;
  let high = ordered.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const item = ordered[middle];
    if (item !== undefined && compareKeys(keyOf(item), after) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
