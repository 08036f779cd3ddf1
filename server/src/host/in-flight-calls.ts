/**
 * The database work a host still has running, so a shutdown waits for it before closing the store.
 * A request whose client went away counts as finished for the HTTP server, yet its handler goes on
 * (a write, then its audit entry): closing the store under it would lose that entry.
 */

/** Counts the calls of tracked objects whose promises have not settled. */
export interface InFlightCalls {
  /** `target` with every method that returns a promise counted until the promise settles. */
  track<T extends object>(target: T): T;
  /** Calls running now. */
  count(): number;
  /**
   * Resolves true once no call has run for `quietMs` (a handler's next call follows its last one
   * within that), or false when `timeoutMs` passes first.
   */
  idle(timeoutMs: number, quietMs?: number): Promise<boolean>;
}

/** A fresh counter. */
export function inFlightCalls(): InFlightCalls {
  let running = 0;
  let lastSettled = 0;
  return {
    track(target) {
      return new Proxy(target, {
        get(object, property, receiver) {
          const value: unknown = Reflect.get(object, property, receiver);
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            const result: unknown = Reflect.apply(value, object, args);
            if (result instanceof Promise) {
              running += 1;
              return result.finally(() => {
                running -= 1;
                lastSettled = Date.now();
              });
            }
            return result;
          };
        },
      });
    },
    count: () => running,
    async idle(timeoutMs, quietMs = 100) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const now = Date.now();
        if (running === 0 && now - lastSettled >= quietMs) return true;
        if (now >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, Math.min(25, Math.max(1, deadline - now))));
      }
    },
  };
}
