/**
 * JSON text in pieces (architecture §4b): `JSON.stringify` of a group with 100,000 members takes about
 * 100 ms in one call, so such a body is cut into pieces whose concatenation is, byte for byte,
 * what `JSON.stringify` of the whole gives; the writer yields to the event loop between them.
 */

/** Elements beyond which an array is written in chunks rather than in one `JSON.stringify`. */
export const LARGE_ARRAY = 2_000;

/** Elements per chunk of a large array: about 150 KB of members, well under a slice to stringify. */
export const CHUNK_ELEMENTS = 1_000;

/** How deep `hasLargeArray` looks: a list body → `Resources` → a group → `members` is three steps. */
const MAX_DEPTH = 3;

function isContainer(value: unknown): value is object {
  // A value with `toJSON` is written as `JSON.stringify` writes it: whole, never taken apart.
  return typeof value === "object" && value !== null && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/**
 * Whether `value` holds an array of more than `limit` elements (default `LARGE_ARRAY`) within
 * `depth` steps. It walks the containers a response's top keys hold, never a large array's
 * elements, so on a resource it costs about as much as looking at its keys.
 */
export function hasLargeArray(value: unknown, depth: number = MAX_DEPTH, limit: number = LARGE_ARRAY): boolean {
  if (!isContainer(value)) return false;
  if (Array.isArray(value)) {
    if (value.length > limit) return true;
    if (depth === 0) return false;
    // Loops, not `some` and `Object.keys`: this runs on every response.
    for (let index = 0; index < value.length; index++) {
      const element: unknown = value[index];
      if (typeof element === "object" && element !== null && hasLargeArray(element, depth - 1, limit)) return true;
    }
    return false;
  }
  if (depth === 0) return false;
  for (const key in value) {
    const member: unknown = (value as Record<string, unknown>)[key];
    if (typeof member === "object" && member !== null && Object.hasOwn(value, key) && hasLargeArray(member, depth - 1, limit)) return true;
  }
  return false;
}

/** The elements of `array` from `start`, written as `JSON.stringify` writes them inside the brackets. */
function elementsText(array: readonly unknown[], start: number, end: number): string {
  return JSON.stringify(array.slice(start, end)).slice(1, -1);
}

/**
 * The JSON text of `value` in pieces: containers that hold a large array are written key by key,
 * the large array chunk by chunk, and everything else in one `JSON.stringify` each. Only for values
 * `JSON.stringify` can write (our response bodies: plain data, no cycles, no BigInt).
 */
export function* jsonPieces(value: unknown): Generator<string, void, void> {
  if (!hasLargeArray(value)) {
    // At the top only: inside a container, `undefined` is dropped (objects) or `null` (arrays).
    yield JSON.stringify(value) ?? "null";
    return;
  }
  if (Array.isArray(value)) {
    yield "[";
    if (value.length > LARGE_ARRAY) {
      for (let start = 0; start < value.length; start += CHUNK_ELEMENTS) {
        yield (start === 0 ? "" : ",") + elementsText(value, start, start + CHUNK_ELEMENTS);
      }
    } else {
      for (let index = 0; index < value.length; index++) {
        if (index > 0) yield ",";
        yield* jsonPieces(value[index]);
      }
    }
    yield "]";
    return;
  }
  const object = value as Record<string, unknown>;
  yield "{";
  let separator = "";
  // Object.keys is the order JSON.stringify writes keys in (ECMA-262 SerializeJSONObject).
  for (const key of Object.keys(object)) {
    const member = object[key];
    if (hasLargeArray(member)) {
      yield `${separator}${JSON.stringify(key)}:`;
      yield* jsonPieces(member);
    } else {
      const text = JSON.stringify(member);
      // JSON.stringify leaves out a key whose value has no JSON form (undefined, a function).
      if (text === undefined) continue;
      yield `${separator}${JSON.stringify(key)}:${text}`;
    }
    separator = ",";
  }
  yield "}";
}
