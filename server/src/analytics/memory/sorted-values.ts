import { compareKeys } from "./keyset-page.js";

/** The values of `map` in the order of their keys (UTF-16 code units), as the lists page them. */
export function sortedValues<T>(map: ReadonlyMap<string, T>): T[] {
  return [...map.keys()].sort(compareKeys).map((key) => map.get(key) as T);
}
