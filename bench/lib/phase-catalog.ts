/**
 * The measured phases: what each request of a phase is. Reads come first and writes last, so a
 * write phase never changes what a read phase sees; POST comes last of all (it adds users).
 */
import { scimGet } from "./control-client.js";
import type { LoadRequest } from "./run-load.js";
import { seededRandom } from "./seeded-random.js";
import type { RunningTarget } from "./target-process.js";
import { addMembersBody, patchActiveBody, removeMemberBody, userBody, userNameOf, userReplaceBody } from "./user-body.js";

/** Phase keys, in the order they run. */
export const USER_PHASES = [
  "users.getById",
  "users.userNameEq",
  "users.emailsCo",
  "users.deepPage",
  "users.deepCursor",
  "users.patchActive",
  "users.put",
  "users.post",
] as const;
export const GROUP_PHASES = ["groups.getExclMembers", "groups.removeOne", "groups.add100"] as const;
export type PhaseKey = (typeof USER_PHASES)[number] | (typeof GROUP_PHASES)[number];

/** What a human calls each phase. */
export const PHASE_LABELS: Record<PhaseKey, string> = {
  "users.getById": "GET /Users/{id}",
  "users.userNameEq": 'filter=userName eq "…"',
  "users.emailsCo": 'filter=emails[type eq "work" and value co "@dept7."]&count=50',
  "users.deepPage": "deep page of a sequential startIndex walk in the 2nd half, count=100",
  "users.deepCursor": "deep page by cursor, count=100",
  "users.patchActive": "PATCH replace active",
  "users.put": "PUT /Users/{id}",
  "users.post": "POST /Users",
  "groups.getExclMembers": "GET /Groups/{id}?excludedAttributes=members",
  "groups.removeOne": 'PATCH remove members[value eq "…"]',
  "groups.add100": "PATCH add 100 members",
};

/** Index of the first user created by the POST phase: far from the seeded and pool users. */
const POST_BASE = 50_000_000;

export interface PhaseSetup {
  readonly target: RunningTarget;
  readonly n: number;
  /** `userIds[i]` is the id of user i, for i < n. */
  readonly userIds: readonly string[];
  readonly seed: number;
}

/** A phase ready to run: its request generator, optional cap, and warm-up. */
export interface PreparedPhase {
  readonly key: PhaseKey;
  readonly groupSize?: number;
  readonly next: () => LoadRequest;
  readonly onResponse?: (status: number, body: string) => void;
  readonly maxRequests?: number;
  readonly warmup?: {
    readonly next: () => LoadRequest;
    readonly maxRequests?: number;
    readonly onResponse?: (status: number, body: string) => void;
    /**
     * Whether the phase has reached its steady state: until it says so the warm-up goes on, one
     * warm-up length at a time, for at most the run's timeout.
     */
    readonly ready?: () => boolean;
  };
  /**
   * Also time this many requests one at a time (1 connection) after the phase, for a phase whose
   * target is a latency: under 10 connections on one core, p50 is mostly queueing.
   */
  readonly alsoSerial?: number;
  /** Set when the target cannot do this phase (e.g. no cursor paging): the reason. */
  readonly unsupported?: string;
}

const q = (value: string): string => encodeURIComponent(value);

/** Cursors (RFC 9865) at positions in the second half of the list, found by walking it once. */
async function cursorsInSecondHalf(setup: PhaseSetup): Promise<string[] | string> {
  const step = Math.max(100, Math.min(1000, Math.floor(setup.n / 40)));
  const first = await scimGet(setup.target, `/Users?cursor=&count=${step}&attributes=id`);
  let cursor = first.body?.["nextCursor"];
  if (first.status !== 200 || typeof cursor !== "string")
    return `no cursor paging (first page: HTTP ${first.status}, nextCursor ${typeof cursor})`;
  const found: string[] = [];
  let position = step;
  while (typeof cursor === "string" && position < setup.n - 100) {
    if (position >= setup.n / 2) found.push(cursor);
    const page = await scimGet(setup.target, `/Users?cursor=${q(cursor)}&count=${step}&attributes=id`);
    if (page.status !== 200) return `cursor walk failed: HTTP ${page.status}`;
    cursor = page.body?.["nextCursor"];
    position += step;
  }
  return found.length > 0 ? found : "no cursor in the second half";
}

/** Builds a user phase for one target at one N. */
export async function prepareUserPhase(key: (typeof USER_PHASES)[number], setup: PhaseSetup): Promise<PreparedPhase> {
  const { n, userIds } = setup;
  const random = seededRandom(setup.seed);
  const pick = (): number => Math.floor(random() * n);
  switch (key) {
    case "users.getById":
      return { key, next: () => ({ method: "GET", path: `/Users/${userIds[pick()]}` }) };
    case "users.userNameEq":
      return { key, next: () => ({ method: "GET", path: `/Users?filter=${q(`userName eq "${userNameOf(pick())}"`)}` }) };
    case "users.emailsCo": {
      const path = `/Users?filter=${q('emails[type eq "work" and value co "@dept7."]')}&count=50`;
      return { key, next: () => ({ method: "GET", path }), alsoSerial: 10 };
    }
    case "users.deepPage": {
      // Identity providers import by walking startIndex pages one after another (issue 29): here
      // 16 walkers through the second half, each asking for its next page once its last one has
      // answered (the page's startIndex and itemsPerPage say which walker it was), starting over
      // at a random place of the second half when it reaches the end.
      const half = Math.floor(n / 2);
      const restart = (): number => half + 1 + Math.floor(random() * Math.max(1, half - 100));
      const queue: number[] = Array.from({ length: 16 }, restart);
      // Each walker's first page is a random deep offset, O(offset) by design (about a second at
      // 1,000,000 on PostgreSQL): the phase measures walking, so the warm-up lasts until every
      // walker's first page has answered (the queue serves them first; 32 answers cover them).
      let answered = 0;
      const onResponse = (status: number, body: string): void => {
        answered += 1;
        let next: number | undefined;
        if (status === 200) {
          try {
            const page = JSON.parse(body) as { readonly startIndex?: unknown; readonly itemsPerPage?: unknown };
            if (typeof page.startIndex === "number" && typeof page.itemsPerPage === "number") next = page.startIndex + page.itemsPerPage;
          } catch {
            next = undefined;
          }
        }
        queue.push(next !== undefined && next <= n - 99 ? next : restart());
      };
      const next = (): LoadRequest => ({ method: "GET", path: `/Users?startIndex=${queue.shift() ?? restart()}&count=100` });
      return { key, next, onResponse, warmup: { next, onResponse, ready: () => answered >= 32 } };
    }
    case "users.deepCursor": {
      const starts = await cursorsInSecondHalf(setup);
      if (typeof starts === "string") return { key, unsupported: starts, next: () => ({ method: "GET", path: "/Users" }) };
      // Each answer's nextCursor is the next request's cursor: the same walk as deepPage, by keyset.
      const queue: string[] = [...starts];
      const restart = (): string => starts[Math.floor(random() * starts.length)] as string;
      const onResponse = (status: number, body: string): void => {
        let next: unknown;
        if (status === 200) {
          try {
            next = (JSON.parse(body) as Record<string, unknown>)["nextCursor"];
          } catch {
            next = undefined;
          }
        }
        queue.push(typeof next === "string" ? next : restart());
      };
      const next = (): LoadRequest => ({ method: "GET", path: `/Users?cursor=${q(queue.shift() ?? restart())}&count=100` });
      return { key, next, onResponse, warmup: { next, onResponse } };
    }
    case "users.patchActive": {
      // Sequential ids; the first pass sets false, the next true …: every request changes the user.
      let k = 0;
      return {
        key,
        next: () => {
          const i = k % n;
          const active = Math.floor(k / n) % 2 === 1;
          k += 1;
          return { method: "PATCH", path: `/Users/${userIds[i]}`, body: patchActiveBody(active) };
        },
      };
    }
    case "users.put": {
      let k = 0;
      return {
        key,
        next: () => {
          const i = k % n;
          k += 1;
          return { method: "PUT", path: `/Users/${userIds[i]}`, body: userReplaceBody(i, k) };
        },
      };
    }
    case "users.post": {
      let k = POST_BASE;
      return {
        key,
        next: () => {
          k += 1;
          return { method: "POST", path: "/Users", body: userBody(k) };
        },
      };
    }
  }
}

export interface GroupSetup {
  readonly groupSize: number;
  /** The group under test: its members are users 0 … groupSize-1. */
  readonly groupId: string;
  /** An empty group used only to warm up the add phase. */
  readonly warmGroupId: string;
  readonly userIds: readonly string[];
  /** Users that are in no group: the add phase adds them 100 at a time. */
  readonly poolIds: readonly string[];
}

/** Builds a group phase for one group. */
export function prepareGroupPhase(key: (typeof GROUP_PHASES)[number], setup: GroupSetup): PreparedPhase {
  const { groupSize, groupId, userIds, poolIds } = setup;
  switch (key) {
    case "groups.getExclMembers": {
      const request: LoadRequest = { method: "GET", path: `/Groups/${groupId}?excludedAttributes=members` };
      return { key, groupSize, next: () => request };
    }
    case "groups.removeOne": {
      if (groupSize === 0)
        return { key, groupSize, unsupported: "an empty group has no member to remove", next: () => ({ method: "GET", path: "/" }) };
      // Each request removes a member still present: users 0, 1, 2 … of the group.
      let k = 0;
      const next = (): LoadRequest => {
        const id = userIds[k % groupSize] as string;
        k += 1;
        return { method: "PATCH", path: `/Groups/${groupId}`, body: removeMemberBody(id) };
      };
      return {
        key,
        groupSize,
        next,
        maxRequests: Math.max(1, Math.floor(groupSize * 0.45)),
        warmup: { next, maxRequests: Math.max(1, Math.floor(groupSize * 0.05)) },
      };
    }
    case "groups.add100": {
      const batches = Math.floor(poolIds.length / 100);
      if (batches < 1) return { key, groupSize, unsupported: "no member pool", next: () => ({ method: "GET", path: "/" }) };
      const batch = (k: number): string[] => poolIds.slice((k % batches) * 100, (k % batches) * 100 + 100) as string[];
      let k = 0;
      let w = 0;
      return {
        key,
        groupSize,
        // Each request adds 100 users that are not yet members of this group.
        next: () => {
          const ids = batch(k);
          k += 1;
          return { method: "PATCH", path: `/Groups/${groupId}`, body: addMembersBody(ids) };
        },
        maxRequests: batches,
        warmup: {
          next: () => {
            const ids = batch(w);
            w += 1;
            return { method: "PATCH", path: `/Groups/${setup.warmGroupId}`, body: addMembersBody(ids) };
          },
          maxRequests: Math.max(1, Math.min(batches, 50)),
        },
      };
    }
  }
}
