/**
 * `sortedPrefix`: the first entries of a list in order, sorted in slices of the event loop. One
 * `Array.prototype.sort` of 100,000 list entries holds the loop for 30–60 ms, over the 50 ms bound
 * of architecture §4b on a busy machine; sorted runs merged pairwise do the same work in pieces.
 */
import { eventLoopSlice, type EventLoopSlice } from "../event-loop-slice.js";

/** Entries per run: one native sort of a run takes about a millisecond. */
const RUN_LENGTH = 4096;
/** Entries merged between two looks at the clock. */
const MERGE_STEP = 1024;

async function merge<T>(
  left: readonly T[],
  right: readonly T[],
  limit: number,
  compare: (a: T, b: T) => number,
  slice: EventLoopSlice,
): Promise<T[]> {
  const length = Math.min(limit, left.length + right.length);
  const merged = new Array<T>(length);
  let i = 0;
  let j = 0;
  for (let out = 0; out < length; out++) {
    if (out % MERGE_STEP === MERGE_STEP - 1 && slice.due()) await slice.next();
    if (j >= right.length || (i < left.length && compare(left[i] as T, right[j] as T) <= 0)) merged[out] = left[i++] as T;
    else merged[out] = right[j++] as T;
  }
  return merged;
}

/**
 * The first `limit` of `items` in the order of `compare`, as `items.slice().sort(compare)
 * .slice(0, limit)` gives them (stable), yielding to the event loop whenever `slice` is spent.
 * Nothing past `limit` is kept at any stage: a first page of 100 out of 100,000 merges runs of
 * at most 100, so a shallow page costs little more than the scan before it.
 */
export async function sortedPrefix<T>(
  items: readonly T[],
  limit: number,
  compare: (a: T, b: T) => number,
  slice: EventLoopSlice = eventLoopSlice(),
): Promise<T[]> {
  const keep = Math.max(0, Math.min(limit, items.length));
  if (keep === 0) return [];
  if (items.length <= RUN_LENGTH) return items.slice().sort(compare).slice(0, keep);
  let runs: T[][] = [];
  for (let start = 0; start < items.length; start += RUN_LENGTH) {
    if (slice.due()) await slice.next();
    const run = items.slice(start, start + RUN_LENGTH).sort(compare);
    runs.push(run.length > keep ? run.slice(0, keep) : run);
  }
  while (runs.length > 1) {
    const merged: T[][] = [];
    for (let index = 0; index < runs.length; index += 2) {
      const left = runs[index] as T[];
      const right = runs[index + 1];
      // Left before right keeps equal entries in their input order, as a stable sort would.
      merged.push(right === undefined ? left : await merge(left, right, keep, compare, slice));
    }
    runs = merged;
  }
  return runs[0] ?? [];
}
