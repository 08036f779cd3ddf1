/**
 * Cooperative time slices for long request work (DESIGN §4b: no request holds the event loop for
 * more than 50 ms). Work that runs in steps asks the slice after each step; once the slice has
 * run for its length, the next ask waits one turn of the event loop, so other organizations'
 * requests are served in between.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";

/** How long one slice of a request's work runs before it lets the event loop turn. */
export const DEFAULT_SLICE_MS = 5;

export interface TimeSlice {
  /**
   * Resolves at once while the slice lasts; once it is used up, after one turn of the event loop
   * (`setImmediate`, so pending I/O of other requests is handled first), starting a new slice.
   */
  pause(): Promise<void>;
  /** Runs a generator to its end, pausing between its steps as `pause` does. */
  drive<T>(steps: Generator<void, T, void>): Promise<T>;
}

/** A slice of `lengthMs` milliseconds (default `DEFAULT_SLICE_MS`), starting now. */
export function createTimeSlice(lengthMs: number = DEFAULT_SLICE_MS): TimeSlice {
  let started = performance.now();
  const pause = async (): Promise<void> => {
    if (performance.now() - started < lengthMs) return;
    await yieldToEventLoop();
    started = performance.now();
  };
  return {
    pause,
    drive: async (steps) => {
      for (;;) {
        const next = steps.next();
        if (next.done) return next.value;
        await pause();
      }
    },
  };
}
