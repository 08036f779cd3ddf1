/**
 * How an organization's provisioning is doing (issue 31, point 4), from what this host's
 * provisioning log kept of it and its tokens' last use: the last request and the last success,
 * requests and failures over the last day and week, the most frequent failures, the identity
 * provider seen last. The week is read newest first, a page at a time, at most
 * `MAX_HEALTH_ENTRIES` entries: beyond that the figures say they are of a part (`complete`).
 */
import type { TokenStore } from "scimkit";
import type { ReadableRequestLog, RequestLogEntry } from "scimkit/request-log";

/** The most log entries one health reads: a busy organization's week is summed from its newest part. */
export const MAX_HEALTH_ENTRIES = 10_000;
/** The failures listed, the most frequent first. */
const TOP_ERRORS = 5;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Requests and failures over one window. */
export interface HealthWindow {
  readonly requests: number;
  /** Answered 4xx or 5xx. */
  readonly failures: number;
  /** `failures / requests`, 0 without requests. */
  readonly errorRate: number;
}

/** One kind of failure, as the log recorded it. */
export interface HealthError {
  readonly status: number;
  readonly scimType?: string;
  readonly detail?: string;
  readonly count: number;
  readonly lastAt: string;
}

/** An organization's provisioning health. */
export interface OrganizationHealth {
  readonly lastRequestAt?: string;
  readonly lastSuccessAt?: string;
  readonly day: HealthWindow;
  readonly week: HealthWindow;
  readonly topErrors: readonly HealthError[];
  /** The identity provider of the latest request, as its `User-Agent` was recognised, and that header. */
  readonly identityProvider?: string;
  readonly userAgent?: string;
  /** The latest use of any of its tokens. */
  readonly tokenLastUsedAt?: string;
  /** Whether the whole week was read (false: the newest `MAX_HEALTH_ENTRIES` entries). */
  readonly complete: boolean;
}

function windowOf(entries: readonly RequestLogEntry[]): HealthWindow {
  const failures = entries.filter((entry) => entry.status >= 400).length;
  return { requests: entries.length, failures, errorRate: entries.length === 0 ? 0 : failures / entries.length };
}

/** The health of `orgId` at `now`, from `log` and `tokens`. */
export async function organizationHealth(
  log: ReadableRequestLog,
  tokens: Pick<TokenStore, "list">,
  orgId: string,
  now: Date,
): Promise<OrganizationHealth> {
  const from = new Date(now.getTime() - 7 * DAY_MS).toISOString();
  const entries: RequestLogEntry[] = [];
  let cursor: string | undefined;
  let complete = true;
  do {
    const page = await log.list(orgId, { from, limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    entries.push(...page.entries);
    cursor = page.nextCursor;
    if (cursor !== undefined && entries.length >= MAX_HEALTH_ENTRIES) complete = false;
  } while (cursor !== undefined && complete);
  const dayFrom = now.getTime() - DAY_MS;
  const errors = new Map<string, { status: number; scimType?: string; detail?: string; count: number; lastAt: string }>();
  for (const entry of entries) {
    if (entry.status < 400) continue;
    const key = `${entry.status} ${entry.scimType ?? ""} ${entry.detail ?? ""}`;
    const known = errors.get(key);
    // Newest first: the first seen is the last one.
    if (known) known.count += 1;
    else
      errors.set(key, {
        status: entry.status,
        ...(entry.scimType === undefined ? {} : { scimType: entry.scimType }),
        ...(entry.detail === undefined ? {} : { detail: entry.detail }),
        count: 1,
        lastAt: entry.at,
      });
  }
  const latest = entries[0];
  const lastSuccess = entries.find((entry) => entry.status < 400);
  const used = (await tokens.list(orgId)).map((token) => token.lastUsedAt).filter((at): at is string => at !== undefined);
  const tokenLastUsedAt = used.sort().at(-1);
  return {
    ...(latest === undefined ? {} : { lastRequestAt: latest.at }),
    ...(lastSuccess === undefined ? {} : { lastSuccessAt: lastSuccess.at }),
    day: windowOf(entries.filter((entry) => Date.parse(entry.at) >= dayFrom)),
    week: windowOf(entries),
    topErrors: [...errors.values()].sort((a, b) => b.count - a.count || b.lastAt.localeCompare(a.lastAt)).slice(0, TOP_ERRORS),
    ...(latest?.identityProvider === undefined ? {} : { identityProvider: latest.identityProvider }),
    ...(latest?.userAgent === undefined ? {} : { userAgent: latest.userAgent }),
    ...(tokenLastUsedAt === undefined ? {} : { tokenLastUsedAt }),
    complete,
  };
}
