/** Keyset paging of the analytics store's lists. */

/**
 * A keyset page request: at most `limit` items after the position `after` (exclusive) in the
 * list's order. The HTTP layer seals positions into opaque cursors; stores only see them here.
 */
export interface PageRequest {
  /** 1–1000. */
  readonly limit: number;
  /** The sort key of the last item of the previous page (its id where the order is by id). */
  readonly after?: string;
}

/** A page of a keyset list. */
export interface Page<T> {
  /** The items, in the list's order. */
  readonly items: readonly T[];
  /** Position to pass as `after` for the next page; absent on the last page. */
  readonly next?: string;
}
