/**
 * A keyed async mutex: tasks under one key run one after another, tasks under different keys run
 * freely. The key-value store takes it per organization around every call.
 *
 * Why a store over an async backend needs one: each `await` on the backend lets another request
 * run. Without the lock, two creates of "alice" can both read "userName is free" and both write,
 * and two updates carrying the same expected version can both read the old version and both
 * write — check-then-set and compare-and-set are only atomic when nothing else runs in between.
 *
 * It serializes calls within one process. Several processes sharing one backend need the
 * backend's own atomicity instead (Redis MULTI/WATCH or a Lua script, DynamoDB condition
 * expressions and TransactWriteItems, a SQL transaction); the store's shape stays the same.
 */

/** Runs async tasks one at a time per key. */
export interface KeyedMutex {
  /**
   * Runs `task` once every task queued earlier under `key` has settled, and settles as it does.
   * A task that throws releases the key like one that returns.
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}

/**
 * A promise-chain mutex: each key maps to the promise that settles when its last queued task
 * does; a new task waits on it and becomes the new tail. Keys are forgotten when idle, so an
 * organization that stops calling costs nothing.
 *
 * @example
 * const lock = keyedMutex();
 * await lock.run(orgId, async () => { … read, check, write … });
 */
export function keyedMutex(): KeyedMutex {
  const tails = new Map<string, Promise<void>>();
  return {
    async run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      let release: () => void = () => {};
      const done = new Promise<void>((resolve) => {
        release = resolve;
      });
      // The tail only ever resolves (never rejects), so one failed task cannot break the chain.
      const tail = previous.then(() => done);
      tails.set(key, tail);
      await previous;
      try {
        return await task();
      } finally {
        release();
        // Only the last task in line may drop the key; a later one has already replaced the tail.
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
  };
}
