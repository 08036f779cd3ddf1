/**
 * Work per key gathered into batches (issue 29): while one batch of a key runs, the items that
 * arrive for the same key wait and then run together as the next batch. Nothing waits when a key
 * is idle, so a lone request pays nothing; under concurrency, N requests to one key cost one
 * transaction instead of N queued ones. Keys never wait for each other.
 */

/** How one item of a batch ended. */
export type Settled<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

/** Submits items per key; see `keyedBatches`. */
export interface KeyedBatches<T, R> {
  /**
   * Runs `item` in the next batch of `key`: at once when no batch of `key` is running, else with
   * the items that arrived meanwhile, in arrival order, once the running batch has settled.
   * Settles as the batch says `item` ended.
   */
  submit(key: string, item: T): Promise<R>;
  /** How many keys have a batch running or waiting; a key is forgotten when its last batch settles. */
  readonly size: number;
}

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

/** How large a batch may grow. */
export interface BatchBounds<T> {
  /** The most items in one batch. */
  readonly maxItems: number;
  /** The most total `weight` in one batch; an item heavier than this alone is a batch of its own. */
  readonly maxWeight: number;
  /** An item's share of `maxWeight`, such as the ids it names. */
  weight(item: T): number;
}

/** The waiting items that form the next batch, taken off `queue`: in order, within `bounds`, at least one. */
function nextBatch<T, R>(queue: Waiting<T, R>[], bounds: BatchBounds<T>): Waiting<T, R>[] {
  let count = 0;
  let weight = 0;
  while (count < queue.length && count < bounds.maxItems) {
    const next = bounds.weight((queue[count] as Waiting<T, R>).item);
    if (count > 0 && weight + next > bounds.maxWeight) break;
    weight += next;
    count += 1;
  }
  return queue.splice(0, count);
}

/**
 * Batches per key over `run`, which gets the items of one batch (within `bounds`, in arrival
 * order) and answers how each ended, in the same order. A `run` that rejects fails every item
 * of its batch with that error.
 *
 * @example
 * const batches = keyedBatches<Request, Result>(async (requests) => writeTogether(requests), {
 *   maxItems: 64, maxWeight: 20_000, weight: (request) => request.ids.length,
 * });
 * const result = await batches.submit(`${orgId}/${id}`, request);
 */
export function keyedBatches<T, R>(
  run: (items: readonly T[]) => Promise<readonly Settled<R>[]>,
  bounds: BatchBounds<T>,
): KeyedBatches<T, R> {
  // Per key with a batch running: the items waiting for the next one. No entry: the key is idle.
  const queues = new Map<string, Waiting<T, R>[]>();

  async function drain(key: string, first: Waiting<T, R>[]): Promise<void> {
    let batch = first;
    for (;;) {
      let settled: readonly Settled<R>[];
      try {
        settled = await run(batch.map((waiting) => waiting.item));
      } catch (error) {
        settled = batch.map(() => ({ ok: false, error }));
      }
      batch.forEach((waiting, index) => {
        const outcome = settled[index];
        if (outcome === undefined) waiting.reject(new Error("keyedBatches: the batch gave no outcome for an item"));
        else if (outcome.ok) waiting.resolve(outcome.value);
        else waiting.reject(outcome.error);
      });
      const queue = queues.get(key) ?? [];
      if (queue.length === 0) {
        queues.delete(key);
        return;
      }
      batch = nextBatch(queue, bounds);
    }
  }

  return {
    get size() {
      return queues.size;
    },
    submit(key, item) {
      return new Promise<R>((resolve, reject) => {
        const waiting = { item, resolve, reject };
        const queue = queues.get(key);
        if (queue !== undefined) {
          queue.push(waiting);
          return;
        }
        queues.set(key, []);
        void drain(key, [waiting]);
      });
    },
  };
}

/** How `promise` ended, as a `Settled`. */
export async function settle<R>(promise: Promise<R>): Promise<Settled<R>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
