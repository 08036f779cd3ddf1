/**
 * A lock per key, first come first served (architecture §4b: concurrent writes to one resource
 * serialize). The service takes it around each read-modify-write of one resource, so requests of
 * this process that change the same user wait for each other instead of racing to a version
 * conflict; requests for other resources never wait.
 */

/** Runs async work one at a time per key. */
export interface KeyedMutex {
  /**
   * Runs `work` once every earlier `run` with the same `key` has settled (resolved or rejected),
   * in the order the calls were made, and settles as `work` does. Runs of different keys overlap.
   * `work` must not `run` the same key again, or it waits for itself.
   *
   * @example await mutex.run(`${orgId}/User/${id}`, () => readModifyWrite())
   */
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
  /**
   * How many keys have a run in progress or waiting. A key is forgotten as soon as its last run
   * settles, so this never exceeds the number of requests in flight.
   */
  readonly size: number;
}

/** The queue of one key: the promise the next run waits for, and how many runs hold or await it. */
interface KeyQueue {
  tail: Promise<void>;
  pending: number;
}

/** Replaced at once by the promise's executor; a module function, so no closure is made per call. */
function settledAlready(): void {}

/**
 * A `KeyedMutex` held in this process's memory.
 *
 * @example
 * const mutex = keyedMutex();
 * await Promise.all([mutex.run("a", first), mutex.run("a", second)]); // second starts after first settles
 */
export function keyedMutex(): KeyedMutex {
  const queues = new Map<string, KeyQueue>();
  return {
    get size() {
      return queues.size;
    },
    async run<T>(key: string, work: () => Promise<T>): Promise<T> {
      let release: () => void = settledAlready;
      const settled = new Promise<void>((resolve) => {
        release = resolve;
      });
      const queue = queues.get(key);
      const previous = queue?.tail;
      const current: KeyQueue = queue ?? { tail: settled, pending: 0 };
      current.tail = settled;
      current.pending += 1;
      if (!queue) queues.set(key, current);
      try {
        if (previous) await previous;
        return await work();
      } finally {
        release();
        current.pending -= 1;
        // Idle keys go at once: the map holds only keys with a request in flight.
        if (current.pending === 0) queues.delete(key);
      }
    },
  };
}
