/**
 * Finds the largest size of something the server accepts, when the size wanted may be refused by
 * a bound (e.g. values per multi-valued attribute). The bench reads the bound from the server's
 * answers rather than assuming it: first the size wanted, then a number the refusal's `detail`
 * names, then a bisection to within `precision`.
 */
import type { Answer } from "./noisy-neighbour-results.js";

/** One try: the size, how the server answered, how long it took. */
export type Attempt = Answer & { readonly size: number; readonly ms: number };

export interface LargestAccepted {
  /** The largest size accepted; 0 when none was. */
  readonly accepted: number;
  readonly attempts: readonly Attempt[];
}

const isAccepted = (status: number): boolean => status >= 200 && status < 300;
// A refusal of the request's size is a 4xx; anything else (5xx, no answer) says nothing about size.
const isRefusal = (status: number): boolean => status >= 400 && status < 500;

/** Numbers in `detail` below `wanted`, largest first: a bound the server names. */
export function boundsNamedIn(detail: string | undefined, wanted: number): number[] {
  const numbers = (detail ?? "").match(/\d[\d,_]*/g) ?? [];
  return [...new Set(numbers.map((text) => Number(text.replace(/[,_]/g, ""))))].filter((n) => n >= 1 && n < wanted).sort((a, b) => b - a);
}

/**
 * Tries `wanted`, then the largest bound the refusal names, then bisects between the largest
 * accepted and the smallest refused size until they are within `precision`.
 */
export async function largestAccepted(
  wanted: number,
  tryOne: (size: number) => Promise<Attempt>,
  precision = Math.max(1, Math.ceil(wanted / 100)),
): Promise<LargestAccepted> {
  const attempts: Attempt[] = [];
  const attempt = async (size: number): Promise<Attempt> => {
    const result = await tryOne(size);
    attempts.push(result);
    return result;
  };
  const first = await attempt(wanted);
  if (isAccepted(first.status)) return { accepted: wanted, attempts };
  if (!isRefusal(first.status)) return { accepted: 0, attempts };
  let accepted = 0;
  let refused = wanted;
  const named = boundsNamedIn(first.detail, wanted)[0];
  if (named !== undefined) {
    const answer = await attempt(named);
    if (isAccepted(answer.status)) {
      accepted = named;
      // The bound the server names is usually exact: one more try confirms it.
      const above = await attempt(named + 1);
      if (isRefusal(above.status)) return { accepted, attempts };
      if (isAccepted(above.status)) accepted = named + 1;
    } else if (isRefusal(answer.status)) refused = named;
    else return { accepted: 0, attempts };
  }
  while (refused - accepted > precision) {
    const size = Math.floor((accepted + refused) / 2);
    const answer = await attempt(size);
    if (isAccepted(answer.status)) accepted = size;
    else if (isRefusal(answer.status)) refused = size;
    else break;
  }
  return { accepted, attempts };
}
