/**
 * The format of an identity-provider replay (architecture §4, §5): one JSON file per scenario under
 * `test/fixtures/idp/{provider}/`, holding the requests a provider documents that it sends, in
 * order, and what it relies on in each response. `test/idp/replay.test.ts` replays every file.
 *
 * Placeholders `{{name}}` in a request (path, headers, body) or an expectation (body, headers)
 * are replaced by the values earlier steps captured, so a fixture never hard-codes a server id.
 */
import { COMPATIBILITY_PROFILE_NAMES, type CompatibilityProfileName } from "../../src/scim/compatibility/compatibility-profile-name.js";

/** Which resource profile the replayed app runs (`spec` is the product profile, spec §2.3). */
export type ReplayProfile = "spec" | "rfc7643";

/** The compatibility profile a replay runs under: one of the library's built-in names. */
export type CompatibilityProfile = CompatibilityProfileName;

export type ReplayMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A JSON value as it appears in a fixture. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

export interface ReplayRequest {
  readonly method: ReplayMethod;
  /**
   * Relative to the organization's SCIM base (`/Users?filter=userName eq "x"`), written as the
   * provider documents it. Characters a request line cannot carry (spaces, quotes) are
   * percent-encoded by the runner; anything already encoded is sent as is.
   */
  readonly path: string;
  /** Sent as given, after the fixture's `headers`. The runner adds the bearer token itself. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON text; a request with a body must say its `Content-Type`. */
  readonly body?: Json;
}

export interface ReplayExpectation {
  /**
   * The response status, or the statuses the source allows alike (RFC 7644 §3.5.2: a PATCH
   * answers 200 with the resource or 204), any one of which passes.
   */
  readonly status: number | readonly number[];
  /**
   * Contained in the response body:
   * - an object matches when each of its keys matches the same key of the response;
   * - an array matches an array of the same length whose elements match one to one, in any order;
   * - `null` matches an unassigned value: absent, `null` or `[]` (RFC 7643 §2.5; `absent` says
   *   "not there at all");
   * - any other value must be equal.
   */
  readonly body?: Json;
  /** Each response header must contain the given text (names are case-insensitive). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Paths such as `$.members` that must not be in the response body at all: what the service
   * omits (RFC 7643 §2.5), where `null` in `body` would accept `[]` as well.
   */
  readonly absent?: readonly string[];
}

export interface ReplayStep {
  /** What the provider does here; a step that pins a architecture §4 tolerance says `tolerance: <which>`. */
  readonly name: string;
  /** The documentation page and section the request is taken from (or that the expectation rests on). */
  readonly source: string;
  readonly request: ReplayRequest;
  readonly expect: ReplayExpectation;
  /**
   * What the response must be instead of `expect` under the named compatibility profiles, where a
   * response choice of theirs (docs/compatibility-profiles.md) makes it differ: under `strict` a
   * group PATCH answers 200 with the group, under the others 204. Each name must be one the
   * fixture runs under, and one profile at least is left to `expect`, so that every expectation
   * is checked.
   */
  readonly expectUnder?: Readonly<Partial<Record<CompatibilityProfile, ReplayExpectation>>>;
  /** Values to keep from the response body for later steps, by a path such as `$.id` or `$.Resources[0].id`. */
  readonly capture?: Readonly<Record<string, string>>;
}

export interface ReplayFixture {
  /** Short name of the scenario; the test is called `<provider>: <scenario>`. */
  readonly scenario: string;
  readonly description?: string;
  /** Default `rfc7643` (the router's own default). */
  readonly profile?: ReplayProfile;
  /**
   * The compatibility profiles the replay must pass under, each run on its own app: the
   * provider's own and `generic`, or `strict` and `generic` for the RFC's examples. A fixture may
   * leave `generic` out where generic departs from its source on purpose (`rfc7644/strict-only.json`:
   * RFC 7644's `noTarget`), if another fixture of its directory runs under `generic`. Default
   * `["generic"]`.
   */
  readonly compatibility?: readonly CompatibilityProfile[];
  /** The pages the steps are written from. */
  readonly sources: readonly { readonly title: string; readonly url: string }[];
  /** Headers the provider sends with every request. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly steps: readonly ReplayStep[];
}

const METHODS: readonly string[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === "string");
}

function isStatus(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 100 && value <= 599;
}

/** Checks an `expect` (or one entry of `expectUnder`) at `at`, throwing what `problem` builds. */
function parseExpectation(expected: unknown, at: string, problem: (where: string, what: string) => Error): void {
  const status = isRecord(expected) ? expected["status"] : undefined;
  if (!isStatus(status) && !(Array.isArray(status) && status.length > 0 && status.every(isStatus))) {
    throw problem(`${at}.status`, "must be an HTTP status, or a non-empty array of the statuses the source allows");
  }
  if (isRecord(expected) && expected["headers"] !== undefined && !isStringRecord(expected["headers"]))
    throw problem(`${at}.headers`, "must map names to strings");
  const absent = isRecord(expected) ? expected["absent"] : undefined;
  if (absent !== undefined) {
    if (!Array.isArray(absent) || absent.length === 0 || !absent.every((path) => typeof path === "string")) {
      throw problem(`${at}.absent`, "must be a non-empty array of paths like $.members");
    }
    for (const path of absent) {
      try {
        readJsonPath({}, path);
      } catch (error) {
        throw problem(`${at}.absent`, (error as Error).message);
      }
    }
  }
}

/** Checks the shape of a parsed fixture file and names the first problem with its location. */
export function parseReplayFixture(value: unknown, file: string): ReplayFixture {
  const problem = (where: string, what: string): Error => new Error(`${file}: ${where} ${what}`);
  if (!isRecord(value)) throw problem("the file", "must hold a JSON object");
  if (typeof value["scenario"] !== "string" || value["scenario"] === "") throw problem("scenario", "must be a non-empty string");
  if (value["profile"] !== undefined && value["profile"] !== "spec" && value["profile"] !== "rfc7643") {
    throw problem("profile", 'must be "spec" or "rfc7643"');
  }
  const compatibility = value["compatibility"];
  if (compatibility !== undefined) {
    const known: readonly string[] = COMPATIBILITY_PROFILE_NAMES;
    if (!Array.isArray(compatibility) || compatibility.length === 0) {
      throw problem("compatibility", `must be a non-empty array of profile names (${COMPATIBILITY_PROFILE_NAMES.join(", ")})`);
    }
    compatibility.forEach((name: unknown, index) => {
      if (typeof name !== "string" || !known.includes(name)) {
        throw problem(
          `compatibility[${index}]`,
          `${JSON.stringify(name)} is not a profile; use one of ${COMPATIBILITY_PROFILE_NAMES.join(", ")}`,
        );
      }
      if (compatibility.indexOf(name) !== index) throw problem(`compatibility[${index}]`, `${JSON.stringify(name)} is listed twice`);
    });
  }
  const profiles: readonly string[] = Array.isArray(compatibility) ? compatibility : ["generic"];
  const sources = value["sources"];
  if (!Array.isArray(sources) || sources.length === 0 || !sources.every((item) => isStringRecord(item) && item["title"] && item["url"])) {
    throw problem("sources", "must list { title, url } of the pages the steps come from");
  }
  if (value["headers"] !== undefined && !isStringRecord(value["headers"])) throw problem("headers", "must map names to strings");
  const steps = value["steps"];
  if (!Array.isArray(steps) || steps.length === 0) throw problem("steps", "must be a non-empty array");
  steps.forEach((step: unknown, index) => {
    const at = `steps[${index}]`;
    if (!isRecord(step)) throw problem(at, "must be an object");
    if (typeof step["name"] !== "string" || step["name"] === "") throw problem(`${at}.name`, "must be a non-empty string");
    if (typeof step["source"] !== "string" || step["source"] === "")
      throw problem(`${at}.source`, "must name where the request comes from");
    const request = step["request"];
    if (!isRecord(request)) throw problem(`${at}.request`, "must be an object");
    if (typeof request["method"] !== "string" || !METHODS.includes(request["method"]))
      throw problem(`${at}.request.method`, `must be one of ${METHODS.join(", ")}`);
    if (typeof request["path"] !== "string" || !request["path"].startsWith("/")) throw problem(`${at}.request.path`, 'must start with "/"');
    if (request["headers"] !== undefined && !isStringRecord(request["headers"]))
      throw problem(`${at}.request.headers`, "must map names to strings");
    const headerNames = Object.keys({ ...(value["headers"] as object | undefined), ...(request["headers"] as object | undefined) }).map(
      (name) => name.toLowerCase(),
    );
    if (headerNames.includes("authorization"))
      throw problem(`${at}.request.headers`, "must not carry credentials; the runner adds the token");
    if (request["body"] !== undefined && !headerNames.includes("content-type"))
      throw problem(`${at}.request.headers`, "must give the Content-Type of the body");
    parseExpectation(step["expect"], `${at}.expect`, problem);
    const under = step["expectUnder"];
    if (under !== undefined) {
      if (!isRecord(under) || Object.keys(under).length === 0) {
        throw problem(`${at}.expectUnder`, "must map compatibility profile names to expectations");
      }
      for (const [name, expectation] of Object.entries(under)) {
        if (!profiles.includes(name)) {
          throw problem(`${at}.expectUnder.${name}`, `names a profile the fixture does not run under (${profiles.join(", ")})`);
        }
        parseExpectation(expectation, `${at}.expectUnder.${name}`, problem);
      }
      if (profiles.every((name) => Object.hasOwn(under, name))) {
        throw problem(`${at}.expectUnder`, "names every profile the fixture runs under, so expect is never checked: move one into expect");
      }
    }
    if (step["capture"] !== undefined && !isStringRecord(step["capture"]))
      throw problem(`${at}.capture`, "must map names to paths like $.id");
  });
  return value as unknown as ReplayFixture;
}

/** The compatibility profiles a fixture runs under (its `compatibility`, or `generic` alone). */
export function compatibilityOf(fixture: ReplayFixture): readonly CompatibilityProfile[] {
  return fixture.compatibility ?? ["generic"];
}

/** What `step` expects of its response under `compatibility`: its `expectUnder` entry, or `expect`. */
export function expectationFor(step: ReplayStep, compatibility: CompatibilityProfile): ReplayExpectation {
  return step.expectUnder?.[compatibility] ?? step.expect;
}

/** The first of `paths` that `body` has a value at (`null` counts), or `undefined` when none. */
export function findPresent(paths: readonly string[], body: unknown): string | undefined {
  return paths.find((path) => readJsonPath(body, path) !== undefined);
}

/** Whether `actual` is the expected status or one of the expected statuses. */
export function statusMatches(expected: ReplayExpectation["status"], actual: number): boolean {
  return typeof expected === "number" ? actual === expected : expected.includes(actual);
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w]*)\s*\}\}/g;

/** Replaces every `{{name}}` in the strings of `value` (keys included); an unknown name throws. */
export function substitute<T extends Json | undefined>(value: T, captured: ReadonlyMap<string, string>): T {
  const inString = (text: string): string =>
    text.replace(PLACEHOLDER, (_match, name: string) => {
      const found = captured.get(name);
      if (found === undefined) throw new Error(`{{${name}}} is used before any step captured it`);
      return found;
    });
  const walk = (item: Json): Json => {
    if (typeof item === "string") return inString(item);
    if (Array.isArray(item)) return item.map(walk);
    if (isRecord(item)) return Object.fromEntries(Object.entries(item).map(([key, inner]) => [inString(key), walk(inner as Json)]));
    return item;
  };
  return (value === undefined ? undefined : walk(value)) as T;
}

/** Percent-encodes what a request line cannot carry (spaces, quotes, non-ASCII), leaving `%XX` as written. */
export function encodeRequestPath(path: string): string {
  return path.replace(/[^\x21-\x7e]|["<>\\^`{|}]/gu, (character) => encodeURIComponent(character));
}

/** Reads `$.a.b[0].c` from a JSON value. */
export function readJsonPath(value: unknown, path: string): unknown {
  if (!path.startsWith("$")) throw new Error(`capture path ${JSON.stringify(path)} must start with "$"`);
  const tokens = path.slice(1).match(/\.[^.[\]]+|\[\d+\]/g) ?? [];
  if (tokens.join("") !== path.slice(1)) throw new Error(`capture path ${JSON.stringify(path)} is not of the form $.a[0].b`);
  let current: unknown = value;
  for (const token of tokens) {
    if (token.startsWith("[")) {
      current = Array.isArray(current) ? current[Number(token.slice(1, -1))] : undefined;
    } else {
      current = isRecord(current) ? current[token.slice(1)] : undefined;
    }
  }
  return current;
}

function isUnassigned(value: unknown): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0);
}

/**
 * Where `actual` fails to contain `expected` (see `ReplayExpectation.body`), as `path: reason`,
 * or `undefined` when it does.
 */
export function findMismatch(expected: Json, actual: unknown, path = "$"): string | undefined {
  if (expected === null) {
    return isUnassigned(actual) ? undefined : `${path}: expected no value (absent, null or []), got ${JSON.stringify(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)}`;
    if (actual.length !== expected.length) {
      return `${path}: expected ${expected.length} element(s), got ${actual.length}: ${JSON.stringify(actual)}`;
    }
    const unused = new Set(actual.keys());
    for (const [index, element] of expected.entries()) {
      const match = [...unused].find((candidate) => findMismatch(element, actual[candidate], `${path}[${candidate}]`) === undefined);
      if (match === undefined)
        return `${path}: no element contains expected [${index}] ${JSON.stringify(element)}; got ${JSON.stringify(actual)}`;
      unused.delete(match);
    }
    return undefined;
  }
  if (isRecord(expected)) {
    if (!isRecord(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, inner] of Object.entries(expected)) {
      const mismatch = findMismatch(inner as Json, actual[key], `${path}.${key}`);
      if (mismatch) return mismatch;
    }
    return undefined;
  }
  return Object.is(expected, actual) ? undefined : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}
