/** The runner's side of the control endpoints (bench/target-protocol.md) and plain SCIM calls. */
import {
  CONTROL_PATHS,
  type MetricsResponse,
  type SeedGroupRequest,
  type SeedGroupResponse,
  type SeedUsersResponse,
} from "./target-protocol.js";
import type { RunningTarget } from "./target-process.js";

async function json<T>(url: string, init?: RequestInit, timeoutMs = 30 * 60_000): Promise<T> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init?.method ?? "GET"} ${url} → ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** Reads (and resets) the target's metrics; `collect` asks it to collect garbage first (optional). */
export function readMetrics(target: RunningTarget, collect = false, timeoutMs?: number): Promise<MetricsResponse> {
  return json<MetricsResponse>(`${target.baseUrl}${CONTROL_PATHS.metrics}${collect ? "?gc=1" : ""}`, undefined, timeoutMs);
}

export interface SeedProgress {
  readonly done: number;
  readonly total: number;
  readonly elapsedMs: number;
}

/** Seeds users `from … from+count-1` in chunks (of the neighbour organization when asked); returns their ids in order. */
export async function seedUsers(
  target: RunningTarget,
  from: number,
  count: number,
  chunk: number,
  progress?: (state: SeedProgress) => void,
  organization: "main" | "neighbour" = "main",
): Promise<string[]> {
  const ids: string[] = [];
  const started = performance.now();
  for (let offset = 0; offset < count; offset += chunk) {
    const size = Math.min(chunk, count - offset);
    const reply = await json<SeedUsersResponse>(`${target.baseUrl}${CONTROL_PATHS.seedUsers}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(
        organization === "main" ? { from: from + offset, count: size } : { from: from + offset, count: size, organization },
      ),
    });
    if (reply.ids.length !== size) throw new Error(`seed-users returned ${reply.ids.length} ids for ${size} users`);
    for (const id of reply.ids) ids.push(id);
    progress?.({ done: offset + size, total: count, elapsedMs: performance.now() - started });
  }
  return ids;
}

/** Creates a group through the target's store API. */
export function seedGroup(target: RunningTarget, request: SeedGroupRequest): Promise<SeedGroupResponse> {
  return json<SeedGroupResponse>(`${target.baseUrl}${CONTROL_PATHS.seedGroup}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
  });
}

/**
 * Asks the target to settle after a bulk load (PostgreSQL: ANALYZE, as autovacuum would soon);
 * undefined when the target has no such endpoint.
 */
export async function settle(target: RunningTarget): Promise<number | undefined> {
  const response = await fetch(`${target.baseUrl}${CONTROL_PATHS.settle}`, { method: "POST", signal: AbortSignal.timeout(30 * 60_000) });
  if (response.status === 404) return undefined;
  const text = await response.text();
  if (!response.ok) throw new Error(`settle → ${response.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { ms: number }).ms;
}

/** Headers for SCIM calls to this target. */
export function scimHeaders(target: RunningTarget): Record<string, string> {
  return {
    accept: "application/scim+json",
    ...(target.ready.token ? { authorization: `Bearer ${target.ready.token}` } : {}),
  };
}

/** One SCIM GET (outside any measurement), for setting up walks. */
export async function scimGet(
  target: RunningTarget,
  pathAndQuery: string,
): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
  const response = await fetch(`${target.baseUrl}${target.ready.scimBase}${pathAndQuery}`, {
    headers: scimHeaders(target),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}
