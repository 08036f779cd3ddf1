/**
 * Copies of the plain records the memory analytics store keeps, so that what a caller passes in
 * or gets back is never the store's own object.
 */

/**
 * A deep copy of plain data (objects, arrays, strings, numbers, booleans, null) without the
 * properties whose value is `undefined`, so an optional field given as `undefined` reads back
 * absent, as it does from a SQL store.
 */
export function plainCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(plainCopy) as T;
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, element] of Object.entries(value)) {
      if (element === undefined) continue;
      // Assigning "__proto__" would set the prototype instead of copying the key.
      if (key === "__proto__")
        Object.defineProperty(copy, key, { value: plainCopy(element), enumerable: true, writable: true, configurable: true });
      else copy[key] = plainCopy(element);
    }
    return copy as T;
  }
  return value;
}
