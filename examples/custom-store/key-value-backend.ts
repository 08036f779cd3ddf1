/**
 * The storage the example store runs on: string keys to string values behind an async API, the
 * lowest common denominator of Redis, DynamoDB, LevelDB, etcd or a browser's IndexedDB. Anything
 * that can implement these four methods can hold SCIM resources through `keyValueStore`.
 */

/** One stored pair, as `scan` yields it. */
export type KeyValueEntry = readonly [key: string, value: string];

/**
 * A minimal async key-value store. Implement it over your database to run `keyValueStore` there.
 *
 * It promises no transactions and no ordering: the store builds its atomicity from a lock (see
 * `async-mutex.ts`) and sorts what it needs itself.
 */
export interface KeyValueBackend {
  /**
   * The value stored under `key`, or `undefined` when there is none.
   *
   * @example await backend.get("res:acme:User:0190…")  // '{"id":"0190…","version":1,…}'
   */
  get(key: string): Promise<string | undefined>;

  /** Stores `value` under `key`, replacing any value there. */
  set(key: string, value: string): Promise<void>;

  /** Removes `key`; removing a key that is not there succeeds. */
  delete(key: string): Promise<void>;

  /**
   * Every pair whose key starts with `prefix`, in no particular order (Redis `SCAN MATCH prefix*`
   * gives none; an ordered store such as LevelDB may yield key order, which is fine too). An
   * async iterable, so a backend can page through a large range without holding it all.
   * Pairs written or deleted while a scan is under way may or may not be seen.
   *
   * @example for await (const [key, value] of backend.scan("mem:acme:0190…:")) …
   */
  scan(prefix: string): AsyncIterable<KeyValueEntry>;
}

/**
 * A `KeyValueBackend` in a `Map`, for the example's tests and for trying the store out. Data
 * lives as long as the process. `scan` walks every key, which is fine for a demo; a real backend
 * answers a prefix from an ordered index.
 *
 * @example
 * const store = keyValueStore(memoryBackend());
 */
export function memoryBackend(): KeyValueBackend {
  const data = new Map<string, string>();
  return {
    async get(key) {
      return data.get(key);
    },
    async set(key, value) {
      data.set(key, value);
    },
    async delete(key) {
      data.delete(key);
    },
    async *scan(prefix) {
      // A snapshot, so a caller that deletes while iterating sees the range as it was.
      const matches = [...data].filter(([key]) => key.startsWith(prefix));
      for (const entry of matches) yield entry;
    },
  };
}
