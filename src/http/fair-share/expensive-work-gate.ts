/**
 * The fair-share extension point (architecture §4b: expensive work of one organization is queued behind
 * its own, not everyone's): whether an expensive request of an organization may run now, or must
 * wait for one of that organization's earlier ones to finish. scimkit ships `fairShareGate()`,
 * which counts in process memory; a host that must bound an organization across several processes
 * implements this over a shared semaphore (Redis, advisory locks of its database).
 */

/** The right to run one expensive request; returned by `ExpensiveWorkGate.acquire`. */
export interface WorkPermit {
  /**
   * Gives the permit back, letting the organization's next queued request run. The router calls
   * it exactly once, when the work has finished or failed; implementations make further calls do
   * nothing, so a permit can never be counted twice.
   */
  release(): void;
}

/**
 * Admits the expensive requests of each organization (list scans, sorts, deep pages, `/Bulk`, as
 * the router's `WorkClassifier` decides) a few at a time. The router asks only for requests the
 * classifier calls expensive, after the request was validated and before the store is asked, so
 * a cheap `GET /Users/{id}` or `userName eq` lookup never waits here, behind its own organization
 * or any other.
 *
 * @example
 * // A limit shared by every process: one expensive request per organization in the whole cluster.
 * const shared: ExpensiveWorkGate = {
 *   async acquire(orgId, signal) {
 *     const lock = await locks.acquire(`scim:expensive:${orgId}`, { signal, waitMs: 30_000 });
 *     if (!lock) throw new ScimError(429, undefined, "…", [], { retryAfter: 5 });
 *     return { release: () => void lock.release() };
 *   },
 * };
 * createScimRouter({ store, auth, fairShare: { gate: shared } });
 */
export interface ExpensiveWorkGate {
  /**
   * Resolves with a permit once one more expensive request of `orgId` may run.
   *
   * Contract:
   * - Organizations are independent: however many requests of one organization run or wait, a
   *   request of another organization is admitted by that organization's own count alone — and,
   *   when the gate bounds groups, by its group's count, which other groups never touch.
   * - Waiting requests of one organization are admitted in the order they asked (FIFO).
   * - When the organization already has as many requests waiting as the gate allows, reject with
   *   a `ScimError` of status 429 or 503 carrying `retryAfter` and a `detail` the client's
   *   operator can act on; the router renders it (with `Retry-After`) like any other SCIM error.
   * - When `signal` aborts while the request waits (its client disconnected), stop waiting:
   *   leave the queue, so the place goes to the next request, and reject with `signal.reason`.
   *   An already aborted signal rejects at once without taking a place.
   * - Every resolved permit is released exactly once by the router, also when the work fails or
   *   its client has gone; a permit resolved after its signal aborted must still count until then.
   *
   * - `signal` also aborts when the router stops waiting for another reason (the request waited
   *   `FairShareOptions.maxWaitMs`): its `reason` is then the 429 `ScimError` to answer with.
   *
   * @param orgId The organization of the request, as the router resolved it.
   * @param signal Aborted when the client disconnects before the response was sent, or when the
   *   router gives up waiting.
   * @param group The organization's fair-share group (`FairShareOptions.group`: for a host with
   *   organization trees, the root of the organization's tree), so that many organizations of one
   *   owner together take no more than a gate allows a group. Default: `orgId`, each organization
   *   its own group. A gate may ignore it and count organizations only.
   * @returns The permit; the router calls `release()` when the work is done.
   */
  acquire(orgId: string, signal?: AbortSignal, group?: string): Promise<WorkPermit>;

  /**
   * Told of every authenticated request, cheap ones included, before it is handled, so a gate
   * can tell whether other organizations are being served: `fairShareGate` holds back an
   * organization that loops expensive work only while another one is, and lets it run flat out
   * when it is alone. Called on the hot path: keep it O(1) and synchronous. Optional; a gate
   * without it is told nothing.
   *
   * @param orgId The organization of the request, as the router resolved it.
   * @param group Its fair-share group, as for `acquire`; default `orgId`. A rest then applies
   *   only while another group is served: a tree's own organizations never slow it down.
   */
  observe?(orgId: string, group?: string): void;
}
