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

/** One key's holder and the runs waiting for it, first come first served. */
interface KeyQueue {
  /** Wakes each waiting run in turn; empty while nobody waits (the usual case: no promise is made). */
  readonly waiting: (() => void)[];
}

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
      let queue = queues.get(key);
      if (queue === undefined) {
        queue = { waiting: [] };
        queues.set(key, queue);
      } else {
        const held = queue;
        await new Promise<void>((resolve) => {
          held.waiting.push(resolve);
        });
      }
      try {
        return await work();
      } finally {
        // Hand the key to the next run, or forget it: the map holds only keys with a request in flight.
        const next = queue.waiting.shift();
        if (next === undefined) queues.delete(key);
        else next();
      }
    },
  };
}
