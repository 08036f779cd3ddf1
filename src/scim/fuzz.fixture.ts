/**
 * Shared generators of the property-based tests (`*.property.test.ts`): hostile text and JSON,
 * and mutations that take a valid filter, path or body and break it — truncated, spliced with
 * characters that mean something to a parser, tokens swapped, nested deeply, made huge, and keys
 * that pollute prototypes (`__proto__`, `constructor`, `prototype`).
 *
 * Mutations are data, not closures, so that fast-check prints and shrinks a counterexample to the
 * exact edit that broke a property.
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { ScimType } from "../errors.js";
import type { Result } from "../result.js";

/**
 * The seed and run count of every property: fixed so that CI is reproducible; set
 * `SCIMKIT_FUZZ_SEED` and `SCIMKIT_FUZZ_RUNS` to explore further locally.
 */
export function fuzzParameters(numRuns: number): { readonly seed: number; readonly numRuns: number } {
  const seed = Number(process.env["SCIMKIT_FUZZ_SEED"] ?? 20_260_704);
  const factor = Number(process.env["SCIMKIT_FUZZ_RUNS"] ?? 1);
  return { seed, numRuns: Math.max(1, Math.round(numRuns * factor)) };
}

/**
 * The time limit of each property test: a guard against a hang, not a measure of speed. Inputs are
 * bounded, so a run ends; on a loaded CI machine it may simply take longer than vitest's 5 s.
 */
export const PROPERTY_TIMEOUT = 60_000;

/**
 * Freezes a JSON value and everything inside it, so that any write into it throws (ES modules are
 * strict code): how the properties prove an input untouched. Iterative, for values nested deeper
 * than a recursive comparison — `JSON.stringify`, `toEqual` — could walk.
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== "object" || item === null || Object.isFrozen(item)) continue;
    Object.freeze(item);
    stack.push(...Object.values(item));
  }
  return value;
}

/** Sets an own enumerable key, even `__proto__`, as `JSON.parse` would. */
export function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Keys that reach `Object.prototype` when code writes `object[key]` unguarded. */
export const PROTOTYPE_KEYS = ["__proto__", "constructor", "prototype"] as const;

/** Fails unless `Object.prototype` and `Array.prototype` still have exactly their own properties. */
export function expectPristinePrototypes(): void {
  const probe: Record<string, unknown> = {};
  expect(probe["polluted"]).toBeUndefined();
  expect(([] as unknown as Record<string, unknown>)["polluted"]).toBeUndefined();
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(Object.keys(Array.prototype)).toEqual([]);
}

/**
 * Checks a failed `Result` is the RFC 7644 §3.12 answer to bad input: a 400 whose `scimType` is
 * one of `allowed`, with a detail and the string status of the error body.
 */
export function expectScimFailure(result: Result<unknown>, allowed: readonly ScimType[]): void {
  if (result.ok) return;
  const { error } = result;
  expect(error.status).toBe(400);
  expect(allowed).toContain(error.scimType);
  expect(error.detail.length).toBeGreaterThan(0);
  expect(error.toJSON()).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "400" });
}

/** Characters and words that mean something to the filter and path grammars (RFC 7644 §3.4.2.2, §3.5.2). */
const MEANINGFUL = [
  "(",
  ")",
  "[",
  "]",
  "].",
  '"',
  '\\"',
  "\\",
  ".",
  ":",
  " ",
  "\t",
  "\n",
  "\u0000",
  "\ud800",
  "\udc00",
  "\u{1f600}",
  "\u202e",
  "\ufeff",
  "eq",
  " and ",
  " or ",
  "not ",
  " pr",
  " co ",
  "__proto__",
  "constructor",
  "prototype",
  "$ref",
  "urn:",
  "urn:ietf:params:scim:schemas:core:2.0:User:",
  "1e400",
  "-1e400",
  "18446744073709551616",
  "-",
  "0",
  "true",
  "null",
  "\\u0000",
  "\\ud800",
  "\\x41",
] as const;

/** A short piece of text a parser might trip on: a meaningful token or a few arbitrary code units. */
export const hostileFragment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...MEANINGFUL),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.string({ unit: "binary-ascii", maxLength: 6 }),
);

/** One edit of a text. */
export type TextMutation =
  | { readonly kind: "truncate"; readonly at: number }
  | { readonly kind: "insert"; readonly at: number; readonly text: string }
  | { readonly kind: "delete"; readonly at: number; readonly length: number }
  | { readonly kind: "swapTokens"; readonly first: number; readonly second: number }
  | { readonly kind: "duplicate"; readonly at: number; readonly length: number }
  | { readonly kind: "nest"; readonly depth: number; readonly open: string; readonly close: string }
  | { readonly kind: "inflate"; readonly length: number };

const textMutation: fc.Arbitrary<TextMutation> = fc.oneof(
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), text: hostileFragment }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant("swapTokens" as const), first: fc.nat(), second: fc.nat() }),
  fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({
    kind: fc.constant("nest" as const),
    // Up to well past the default depth limit of 32, so that both sides of the guard are reached.
    depth: fc.integer({ min: 1, max: 400 }),
    open: fc.constantFrom("(", "not (", "emails[", "[", '"', "((", "not (not ("),
    close: fc.constantFrom(")", "]", ")]", '"', "))"),
  }),
  // Past the default filter length limit of 10,000 characters, and just under it.
  fc.record({ kind: fc.constant("inflate" as const), length: fc.constantFrom(9_999, 10_000, 10_001, 12_000) }),
);

/** Applies one edit. Positions wrap around the text, so every generated edit lands somewhere. */
export function applyTextMutation(text: string, mutation: TextMutation): string {
  const at = (position: number): number => position % (text.length + 1);
  switch (mutation.kind) {
    case "truncate":
      return text.slice(0, at(mutation.at));
    case "insert":
      return `${text.slice(0, at(mutation.at))}${mutation.text}${text.slice(at(mutation.at))}`;
    case "delete":
      return `${text.slice(0, at(mutation.at))}${text.slice(at(mutation.at) + mutation.length)}`;
    case "swapTokens": {
      const tokens = text.split(/(\s+|[()[\]])/).filter((token) => token !== "");
      if (tokens.length < 2) return text;
      const first = mutation.first % tokens.length;
      const second = mutation.second % tokens.length;
      const swapped = [...tokens];
      swapped[first] = tokens[second] ?? "";
      swapped[second] = tokens[first] ?? "";
      return swapped.join("");
    }
    case "duplicate": {
      const start = at(mutation.at);
      return `${text.slice(0, start)}${text.slice(start, start + mutation.length)}${text.slice(start)}`;
    }
    case "nest":
      return `${mutation.open.repeat(mutation.depth)}${text}${mutation.close.repeat(mutation.depth)}`;
    case "inflate": {
      const unit = text === "" ? "x" : text;
      return unit.repeat(Math.ceil(mutation.length / unit.length)).slice(0, mutation.length);
    }
  }
}

/** Valid texts from `seeds`, each broken by one to four edits. */
export function mutatedText(seeds: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(seeds, fc.array(textMutation, { minLength: 1, maxLength: 4 }))
    .map(([seed, mutations]) => mutations.reduce(applyTextMutation, seed));
}

/** Any text at all, of bounded length: arbitrary code units (lone surrogates included) or graphemes. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 80 }),
  fc.array(hostileFragment, { maxLength: 20 }).map((parts) => parts.join("")),
);

/**
 * `depth` levels of `{"a": …}` or `[…]` around `inner`, built without recursion. It prints as a
 * summary in a counterexample: fast-check's printer recurses, and would overflow on the value itself.
 */
export function nestedJson(depth: number, inner: unknown, shape: "object" | "array"): unknown {
  let value = inner;
  for (let level = 0; level < depth; level += 1) value = shape === "object" ? { a: value } : [value];
  if (typeof value === "object" && value !== null) {
    // A symbol key: invisible to Object.keys, Object.entries and JSON, so to the code under test.
    Object.defineProperty(value, fc.toStringMethod, { value: () => `nestedJson(${depth}, ${fc.stringify(inner)}, "${shape}")` });
  }
  return value;
}

/** An object whose own keys are the prototype-polluting ones, each holding a payload that marks pollution. */
export function pollutingObject(): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  defineKey(object, "__proto__", { polluted: true });
  defineKey(object, "constructor", { prototype: { polluted: true } });
  defineKey(object, "prototype", { polluted: true });
  return object;
}

/** JSON values a validator should refuse or ignore: wrong types, overflowing numbers, huge and deep values. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    "",
    0,
    -0,
    0.5,
    1e308,
    -1e308,
    2 ** 64,
    Number.MAX_SAFE_INTEGER + 2,
    true,
    "True",
    "FALSE",
    "\u0000",
    "nul\u0000inside",
    "\ud800",
    "2025-02-30T25:61:61Z",
    [],
    {},
    [null],
    [[]],
    [{}],
    { value: {} },
    { value: null },
    { value: ["x"] },
  ),
  fc.constant(null).map(pollutingObject),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.integer({ min: 1_000, max: 20_000 }).map((length) => "h".repeat(length)),
  // Deep enough to exhaust the call stack of any code that recurses over a client's value.
  fc
    .tuple(
      fc.oneof(fc.integer({ min: 1, max: 100 }), fc.constantFrom(1_000, 5_000, 12_000)),
      fc.constantFrom("object" as const, "array" as const),
    )
    .map(([depth, shape]) => nestedJson(depth, "x", shape)),
);

/** Keys a body should ignore or refuse: prototype keys, near-misses of real names, stray URNs and paths. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    ...PROTOTYPE_KEYS,
    "toString",
    "hasOwnProperty",
    "valueOf",
    "USERNAME",
    "schemas",
    "SCHEMAS",
    "Operations",
    "op",
    "path",
    "value",
    "members",
    "emails",
    "name.givenName",
    "name.__proto__",
    'emails[type eq "work"].value',
    "emails[__proto__ pr]",
    "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
    "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:__proto__",
    "urn:ietf:params:scim:schemas:core:2.0:User:userName",
    "",
  ),
  fc.string({ unit: "binary", maxLength: 12 }),
);

/** One edit of a JSON value; `target` picks a container (object or array) inside it, wrapping around. */
export type JsonMutation =
  | { readonly kind: "setKey"; readonly target: number; readonly key: string; readonly value: unknown }
  | { readonly kind: "replace"; readonly target: number; readonly child: number; readonly value: unknown }
  | { readonly kind: "deleteKey"; readonly target: number; readonly child: number }
  | { readonly kind: "wrap"; readonly target: number; readonly child: number; readonly shape: "object" | "array"; readonly depth: number }
  | { readonly kind: "renameKey"; readonly target: number; readonly child: number; readonly key: string };

const jsonMutation: fc.Arbitrary<JsonMutation> = fc.oneof(
  fc.record({ kind: fc.constant("setKey" as const), target: fc.nat(), key: hostileKey, value: hostileValue }),
  fc.record({ kind: fc.constant("replace" as const), target: fc.nat(), child: fc.nat(), value: hostileValue }),
  fc.record({ kind: fc.constant("deleteKey" as const), target: fc.nat(), child: fc.nat() }),
  fc.record({
    kind: fc.constant("wrap" as const),
    target: fc.nat(),
    child: fc.nat(),
    shape: fc.constantFrom("object" as const, "array" as const),
    depth: fc.integer({ min: 1, max: 50 }),
  }),
  fc.record({ kind: fc.constant("renameKey" as const), target: fc.nat(), child: fc.nat(), key: hostileKey }),
);

type Container = Record<string, unknown> | unknown[];

/**
 * A deep copy of a JSON value that keeps own `__proto__` keys and, being iterative, copes with
 * any depth (`structuredClone` recurses, and a mutated value may be thousands of levels deep).
 */
export function copyJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const root: Container = Array.isArray(value) ? [] : {};
  const work: (readonly [Container, Container])[] = [[value as Container, root]];
  while (work.length > 0) {
    const [source, target] = work.pop() as readonly [Container, Container];
    // Keep the summary a deep value prints as (see `nestedJson`).
    if (fc.hasToStringMethod(source)) Object.defineProperty(target, fc.toStringMethod, { value: source[fc.toStringMethod] });
    for (const [key, child] of Object.entries(source)) {
      let copy = child;
      if (typeof child === "object" && child !== null) {
        copy = Array.isArray(child) ? [] : {};
        work.push([child as Container, copy as Container]);
      }
      if (Array.isArray(target)) target.push(copy);
      else defineKey(target, key, copy);
    }
  }
  return root;
}

function containersOf(root: unknown): Container[] {
  const found: Container[] = [];
  // Iterative, and bounded: a mutation may already have nested the value deeply.
  const stack: unknown[] = [root];
  while (stack.length > 0 && found.length < 200) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    found.push(value as Container);
    stack.push(...Object.values(value));
  }
  return found;
}

/** Applies one edit in place to `root` (a fresh copy the caller owns) and returns the new root. */
export function applyJsonMutation(root: unknown, mutation: JsonMutation): unknown {
  const containers = containersOf(root);
  if (containers.length === 0) return mutation.kind === "replace" ? copyJson(mutation.value) : root;
  const target = containers[mutation.target % containers.length] as Container;
  const keys = Object.keys(target);
  const key = keys.length === 0 ? undefined : keys[("child" in mutation ? mutation.child : 0) % keys.length];
  const write = (name: string, value: unknown): void => {
    if (Array.isArray(target)) target[Number(name)] = value;
    else defineKey(target, name, value);
  };
  switch (mutation.kind) {
    case "setKey":
      // A copy: generated values may be shared between runs, and later edits write into them.
      if (Array.isArray(target)) target.push(copyJson(mutation.value));
      else defineKey(target, mutation.key, copyJson(mutation.value));
      return root;
    case "replace":
      if (key !== undefined) write(key, copyJson(mutation.value));
      return root;
    case "deleteKey":
      if (key === undefined) return root;
      if (Array.isArray(target)) target.splice(Number(key), 1);
      else delete target[key];
      return root;
    case "wrap":
      if (key !== undefined) write(key, nestedJson(mutation.depth, (target as Record<string, unknown>)[key], mutation.shape));
      return root;
    case "renameKey": {
      if (key === undefined || Array.isArray(target)) return root;
      const value = target[key];
      delete target[key];
      defineKey(target, mutation.key, value);
      return root;
    }
  }
}

/** Valid JSON values from `seeds`, each broken by one to four edits; the seeds are never touched. */
export function mutatedJson(seeds: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(seeds, fc.array(jsonMutation, { minLength: 1, maxLength: 4 }))
    .map(([seed, mutations]) => mutations.reduce(applyJsonMutation, copyJson(seed)));
}

/** Every own key at any depth of a JSON value, iteratively. */
export function ownKeysDeep(root: unknown): string[] {
  const keys: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    if (!Array.isArray(value)) keys.push(...Object.keys(value));
    stack.push(...Object.values(value));
  }
  return keys;
}

/** Whether every object and array inside `root` has the ordinary prototype. */
export function hasOrdinaryPrototypes(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    const expected = Array.isArray(value) ? Array.prototype : Object.prototype;
    if (Object.getPrototypeOf(value) !== expected) return false;
    stack.push(...Object.values(value));
  }
  return true;
}
