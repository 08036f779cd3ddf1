/**
 * Which requests count as expensive and go through the `ExpensiveWorkGate`: the second half of
 * the fair share (architecture §4b). The classifier sees the request as the core normalized it, never
 * raw query text, so it judges what the store will actually be asked to do.
 */
import type { ListRequest } from "../../store/resource-store.js";

/**
 * A list or `.search` request (RFC 7644 §3.4.2, §3.4.3) as the store will receive it. A search at
 * the service root (§3.4.2.1) is judged as one such request per resource type it reads (its
 * filter narrowed to the type), and is expensive when any of them is.
 */
export interface ListWork {
  readonly kind: "list";
  /**
   * The store's request: the filter resolved against the schema, the sort resolved, the page
   * clamped (`startIndex` ≥ 1, `count` ≤ `paging.maxPageSize`), `members` whether the page
   * carries group members, `orgId` and `resourceType`.
   */
  readonly request: ListRequest;
}

/** A `/Bulk` request (RFC 7644 §3.7) whose body has been read. */
export interface BulkWork {
  readonly kind: "bulk";
  readonly orgId: string;
  /** How many operations the body lists (not yet validated one by one); 0 when it lists none. */
  readonly operations: number;
}

/**
 * A request with a body, judged on its headers before a byte of the body is read: reading and
 * parsing a megabyte of JSON takes the event loop for milliseconds whatever the request turns out
 * to be, so the turn is taken before the body parser runs (and covers everything after it).
 */
export interface BodyWork {
  readonly kind: "body";
  readonly orgId: string;
  /** The request method: any whose body the router reads (not GET, HEAD or DELETE). */
  readonly method: string;
  /** The declared `Content-Length` in bytes; `undefined` for a chunked body of unknown length. */
  readonly bytes: number | undefined;
}

/** Work the router may gate. */
export type ScimWork = ListWork | BulkWork | BodyWork;

/**
 * Decides whether a request is expensive. `expensiveWorkClassifier()` is the default; a host
 * replaces it when its store answers more (or fewer) requests from an index.
 *
 * @example
 * // Also treat every Groups list that returns members as expensive, however it is filtered.
 * const base = expensiveWorkClassifier();
 * const classifier: WorkClassifier = {
 *   isExpensive: (work) => base.isExpensive(work) || (work.kind === "list" && work.request.members),
 * };
 * createScimRouter({ store, auth, fairShare: { classifier } });
 */
export interface WorkClassifier {
  /**
   * Whether `work` must take a permit of the organization's `ExpensiveWorkGate` before it runs.
   *
   * Contract: synchronous, cheap and pure — it runs on every list, `/Bulk` and write request. Answer
   * `false` for the requests identity providers send all the time (lookups by `id`, `userName`,
   * `externalId`, small first pages): those must never wait behind a scan, not even one of their
   * own organization. An exception fails the request with 500 and goes to `onError`.
   */
  isExpensive(work: ScimWork): boolean;
}
