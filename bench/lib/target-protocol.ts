/**
 * The contract between the bench runner and a target process (see `bench/target-protocol.md`).
 * Every measured server — bare Express, scimkit on each store, the scimmy peer — is a child
 * process started as `node --import tsx bench/targets/<name>.ts`, pinned to its own core.
 */

/** Printed once, as one JSON line on stdout, when the target accepts requests. */
export interface ReadyLine {
  readonly ready: true;
  /** The TCP port on 127.0.0.1 it listens on (it picks a free one when PORT is unset or 0). */
  readonly port: number;
  /** The SCIM base path, e.g. `/scim/Organizations/bench/v2` or `/scim/v2`; `""` for the bare target. */
  readonly scimBase: string;
  /** The bearer token to send as `Authorization: Bearer <token>`; `""` when none is needed. */
  readonly token: string;
  /** Optional free text: the store, the library version … (shown in the report). */
  readonly description?: string;
  /**
   * Optional: a second organization of the same server, for the noisy-neighbour scenario (the
   * first one is organization A, this one B). Absent: the target serves one organization.
   */
  readonly neighbour?: OrganizationAccess;
}

/** Where one organization's SCIM endpoints are and the token that opens them. */
export interface OrganizationAccess {
  readonly scimBase: string;
  readonly token: string;
}

/** `GET /__bench/metrics` → this; the event-loop histogram is reset after each call. */
export interface MetricsResponse {
  /** `process.memoryUsage().rss`. */
  readonly rssBytes: number;
  /** `process.memoryUsage().heapUsed`. */
  readonly heapUsedBytes: number;
  /**
   * The longest event-loop delay since the previous call, in ms, from
   * `perf_hooks.monitorEventLoopDelay({ resolution: 10 })` (`max / 1e6`).
   */
  readonly maxEventLoopDelayMs: number;
  /**
   * Optional: SCIM requests whose handler has not finished (including those whose client has
   * gone). After each phase the runner waits until it is 0 before the next one.
   */
  readonly inFlight?: number;
}

/**
 * `POST /__bench/seed-users` body: create users `from … from+count-1` with the bodies of
 * `userBody(i)` from `bench/lib/user-body.ts`, through the target's own storage API (not HTTP),
 * in batches with bounded concurrency. The runner calls it in chunks (≤ 10,000 users a call).
 */
export interface SeedUsersRequest {
  readonly from: number;
  readonly count: number;
  /**
   * Optional: `"neighbour"` seeds the organization of `ReadyLine.neighbour` instead of the main
   * one. Its users are not members of `seed-group`'s `memberCount` users.
   */
  readonly organization?: "main" | "neighbour";
}

/** Response to `seed-users`: the service ids, in the order `from … from+count-1`. */
export interface SeedUsersResponse {
  readonly ids: readonly string[];
  /** Wall time the target spent, ms. */
  readonly ms: number;
}

/**
 * `POST /__bench/seed-group` body: create one group (displayName given, or a unique one) whose
 * members are `memberIds` (service ids of seeded users) — or, with `memberCount`, the first
 * `memberCount` users seeded so far — through the storage API.
 */
export interface SeedGroupRequest {
  readonly displayName?: string;
  readonly memberIds?: readonly string[];
  readonly memberCount?: number;
}

/** Response to `seed-group`. */
export interface SeedGroupResponse {
  readonly id: string;
  readonly memberCount: number;
  readonly ms: number;
}

/** Environment the runner sets for a target. */
export interface TargetEnvironment {
  /** Port to listen on; "0" or unset → any free port. Always bind 127.0.0.1. */
  readonly PORT?: string;
  /** scimkit target only: `memory` | `sqlite` | `postgres`. */
  readonly STORE?: string;
  /** scimkit target with STORE=postgres: the connection URL (a fresh schema is created and dropped). */
  readonly SCIMKIT_BENCH_POSTGRES_URL?: string;
  /** scimkit target only: the provisioning log, `memory` | `sql` (unset: none). */
  readonly REQUEST_LOG?: string;
}

/** Control paths every SCIM target serves in-process (outside the SCIM base, without auth). */
export const CONTROL_PATHS = {
  metrics: "/__bench/metrics",
  seedUsers: "/__bench/seed-users",
  seedGroup: "/__bench/seed-group",
  /** Optional (404 = nothing to do): `POST` after seeding → `{ ms }`. */
  settle: "/__bench/settle",
} as const;

/** Parses the ready line, or returns undefined when `line` is something else (a log line). */
export function parseReadyLine(line: string): ReadyLine | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value = JSON.parse(trimmed) as Partial<ReadyLine>;
    if (value.ready === true && typeof value.port === "number") {
      const neighbour = value.neighbour;
      return {
        ready: true,
        port: value.port,
        scimBase: value.scimBase ?? "",
        token: value.token ?? "",
        ...(value.description ? { description: value.description } : {}),
        ...(neighbour && typeof neighbour.scimBase === "string" && typeof neighbour.token === "string"
          ? { neighbour: { scimBase: neighbour.scimBase, token: neighbour.token } }
          : {}),
      };
    }
  } catch {
    return undefined;
  }
  return undefined;
}
