/**
 * The sample of unauthenticated requests a provisioning log keeps (issue 27): anyone on the
 * network decides how many arrive, so a log keeps at most a fixed number per minute and counts
 * the rest, per window, for the operator to see how large the noise was.
 */

/** Unauthenticated entries a log keeps in all, newest first, unless told otherwise. */
export const DEFAULT_UNAUTHENTICATED_CAPACITY = 1000;

/** Unauthenticated entries a log process keeps per minute unless told otherwise; the rest are counted. */
export const DEFAULT_UNAUTHENTICATED_PER_MINUTE = 60;

/** The sampling window: one minute. */
export const UNAUTHENTICATED_WINDOW_MS = 60_000;

/** Admits or counts each unauthenticated entry. */
export interface UnauthenticatedSample {
  /** Whether to keep the next entry: true for the first `perMinute` of its window, else it is counted as dropped. */
  admit(): boolean;
  /** Entries counted as dropped since the sample was made. */
  readonly dropped: number;
  /** The drops not taken yet, by the start of their window (milliseconds); taking them empties the list. */
  takeDrops(): ReadonlyMap<number, number>;
  /** Gives back drops taken but not written (the database could not be reached), to be taken again. */
  putBackDrops(drops: ReadonlyMap<number, number>): void;
}

/**
 * A fixed-window sample: the first `perMinute` entries of each minute are kept.
 *
 * @example
 * const sample = unauthenticatedSample(60, Date.now);
 * if (sample.admit()) keep(entry);
 */
export function unauthenticatedSample(perMinute: number, now: () => number): UnauthenticatedSample {
  if (!Number.isInteger(perMinute) || perMinute < 1)
    throw new RangeError(`unauthenticatedPerMinute must be a positive integer; got ${String(perMinute)}.`);
  let window = Number.NaN;
  let admitted = 0;
  let dropped = 0;
  let drops = new Map<number, number>();
  return {
    admit() {
      const current = Math.floor(now() / UNAUTHENTICATED_WINDOW_MS) * UNAUTHENTICATED_WINDOW_MS;
      if (current !== window) {
        window = current;
        admitted = 0;
      }
      if (admitted < perMinute) {
        admitted += 1;
        return true;
      }
      dropped += 1;
      drops.set(window, (drops.get(window) ?? 0) + 1);
      return false;
    },
    get dropped() {
      return dropped;
    },
    takeDrops() {
      const taken = drops;
      drops = new Map();
      return taken;
    },
    putBackDrops(given) {
      for (const [at, count] of given) drops.set(at, (drops.get(at) ?? 0) + count);
    },
  };
}
