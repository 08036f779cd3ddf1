/**
 * `expensiveWorkClassifier`: the default `WorkClassifier`. A request is cheap when the store can
 * answer it from an index or with a short walk along the id order, and expensive when its cost
 * grows with the organization's size.
 */
import { indexKeysOf } from "../../store/index-candidates.js";
import type { ScimWork, WorkClassifier } from "./work-classifier.js";

/** Options of `expensiveWorkClassifier`. */
export interface ExpensiveWorkOptions {
  /**
   * A `startIndex` above this makes an unfiltered list a deep page: SQL stores read and discard
   * every row before it (OFFSET), so a walk by index costs more with each page. Default 1,000.
   */
  readonly deepStartIndex?: number;
  /**
   * A `count` above this makes a list a large page: reading, rendering and serializing it grows
   * with the count. Default 200, twice the page identity providers ask for.
   */
  readonly largeCount?: number;
  /**
   * A write whose declared body is longer than this many bytes, or chunked with no length, is
   * expensive before it is read: it takes its organization's turn ahead of the body parser.
   * Default 65,536 (64 KiB): identity providers send a user or a membership change in a few KiB
   * (a PATCH adding a thousand members is about 50 KiB), while a megabyte PATCH of thousands of
   * operations, or a `/Bulk` body, costs the event loop milliseconds just to parse.
   */
  readonly largeBody?: number;
}

function threshold(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 0)
    throw new Error(`expensiveWorkClassifier: ${name} must be a non-negative integer; got ${String(value)}.`);
  return chosen;
}

/**
 * Classifies from the normalized request (architecture §3: the store sees it in the same form):
 * - a list whose filter an index answers — `eq` on `id`, `externalId` or a unique attribute
 *   (`userName`; a Group's `displayName`), alone, in an `and`, or in an `or` of such — is cheap,
 *   whatever its sort and page, since the store narrows it to a handful of candidates first;
 * - any other filter is expensive: the store scans the organization (`emails.value co "x"`,
 *   `title pr`, `name.familyName ew "z"`, `displayName eq` on Users, `not (…)`);
 * - so is any `sortBy` (every match is ordered before a page is cut), an index page starting after
 *   `deepStartIndex`, a page of more than `largeCount`, and a page of groups with their members;
 * - an unfiltered, unsorted page of up to `largeCount` near the start, or after a cursor, is cheap:
 *   a walk along the id order;
 * - `/Bulk` is always expensive: up to `bulk.maxOperations` writes in one request;
 * - so is a write whose body is over `largeBody` bytes, or chunked, judged on its headers.
 *
 * @example
 * createScimRouter({ store, auth, fairShare: { classifier: expensiveWorkClassifier({ deepStartIndex: 10_000 }) } });
 */
export function expensiveWorkClassifier(options: ExpensiveWorkOptions = {}): WorkClassifier {
  const deepStartIndex = threshold("deepStartIndex", options.deepStartIndex, 1000);
  const largeCount = threshold("largeCount", options.largeCount, 200);
  const largeBody = threshold("largeBody", options.largeBody, 65_536);
  return {
    isExpensive(work: ScimWork): boolean {
      if (work.kind === "bulk") return true;
      if (work.kind === "body") return work.bytes === undefined || work.bytes > largeBody;
      const { filter, sort, page, members } = work.request;
      if (filter !== undefined) return indexKeysOf(filter).length === 0;
      if (sort !== undefined || members || page.count > largeCount) return true;
      return page.kind === "index" && page.startIndex > deepStartIndex;
    },
  };
}
