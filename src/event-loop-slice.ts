/**
 * Long loops in slices (architecture §4b: no request holds the event loop for more than 50 ms): a loop
 * over tens of thousands of resources asks `due()` as it goes and, when its slice of the loop is
 * spent, awaits `next()`, which lets every pending I/O callback — other requests — run first.
 */
import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * How long one slice may hold the event loop. Well under the 50 ms bound so that a short request
 * of another organization that arrives mid-scan waits a few milliseconds, not tens: its latency
 * is what a fair share is measured by. A turn costs tens of microseconds, under 1 % of a slice.
 */
export const SLICE_MS = 4;

/** The clock of one long loop. */
export interface EventLoopSlice {
  /** Whether the current slice is spent; cheap enough to ask every few dozen items. */
  due(): boolean;
  /** Gives the event loop a turn (after pending I/O) and starts a new slice. */
  next(): Promise<void>;
}

/** A slice clock that starts now. */
export function eventLoopSlice(budgetMs: number = SLICE_MS): EventLoopSlice {
  let started = performance.now();
  return {
    due() {
      return performance.now() - started >= budgetMs;
    },
    async next() {
      await nextTurn();
      started = performance.now();
    },
  };
}

/** Items between two looks at the clock: `performance.now()` per item would cost more than the check saves. */
const CHECK_EVERY = 32;

/**
 * `items.map(transform)` that yields whenever its slice is spent, for pages whose size the host
 * configures (`paging.maxPageSize`), so a host that raises the bound does not raise the stall.
 */
export async function mapInSlices<T, U>(
  items: readonly T[],
  transform: (item: T) => U,
  slice: EventLoopSlice = eventLoopSlice(),
): Promise<U[]> {
  const mapped = new Array<U>(items.length);
  for (let index = 0; index < items.length; index++) {
    if (index % CHECK_EVERY === CHECK_EVERY - 1 && slice.due()) await slice.next();
    mapped[index] = transform(items[index] as T);
  }
  return mapped;
}

/** `slice.next()` when the slice is spent; otherwise resolves at once. Between steps of long work. */
export async function pauseIfDue(slice: EventLoopSlice): Promise<void> {
  if (slice.due()) await slice.next();
}

/** Runs a generator to its end, giving the event loop a turn between steps once a slice is spent. */
export async function driveInSlices<T>(steps: Generator<void, T, void>, slice: EventLoopSlice = eventLoopSlice()): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    // The check inline, not `pauseIfDue`: an async call per step is a promise and a microtask each.
    if (slice.due()) await slice.next();
  }
}
