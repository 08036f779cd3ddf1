/**
 * The operator's figures across regions (issue 30, point 5): this region's totals counted here,
 * each other region's asked of its host over the region channel (`region-aggregates-feed.ts`),
 * all at once, and their sum. A cross-region figure is made of per-region totals only: no row of
 * an organization or a person is asked for or would be kept.
 *
 * As with the directory (`pull-region-directories.ts`), a peer is asked only at its configured
 * address (`SCIMKIT_REGIONS`), no redirect is followed, and what it can make this host read and
 * say is bounded: `MAX_AGGREGATES_BYTES`, `AGGREGATES_TIMEOUT_MS`, and every field checked. A peer
 * that fails is listed with why, and the sum says it is incomplete.
 */
import type { OrganizationTotals, RegionAggregates, RegionsSummary, RegionSummaryEntry } from "@scimkit/server";
import { readBoundedText } from "scimkit";
import { fetchPeer } from "./fetch-peer.js";

/** The most bytes of a peer's answer read: its totals are about 150. */
export const MAX_AGGREGATES_BYTES = 64 * 1024;
/** How long a peer may take to answer. */
export const AGGREGATES_TIMEOUT_MS = 5000;

// Printable, no controls: what the operator's console shows cannot be split or spoofed.
const TEXT = /^\P{Cc}{1,200}$/u;
const COUNTS = ["organizations", "users", "activeUsers", "groups"] as const;

/** `body` as `region`'s totals, each field checked; throws on anything else. */
function aggregatesOf(region: string, body: unknown): RegionAggregates {
  const answer = (body ?? {}) as Record<string, unknown>;
  if (typeof body !== "object" || body === null || answer["region"] !== region) throw new Error(`not the totals of region ${region}`);
  const at = answer["at"];
  if (typeof at !== "string" || !TEXT.test(at) || Number.isNaN(Date.parse(at))) throw new Error("totals without a valid time");
  const totals = {} as Record<(typeof COUNTS)[number], number>;
  for (const name of COUNTS) {
    const value = answer[name];
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw new Error(`totals without a valid ${name}`);
    totals[name] = value;
  }
  if (totals.activeUsers > totals.users) throw new Error("totals with more active users than users");
  return { region, at, ...totals };
}

/** `region`'s totals, asked of its host at `baseUrl`. */
export async function readPeerAggregates(
  region: string,
  baseUrl: string,
  key: string,
  timeoutMs: number = AGGREGATES_TIMEOUT_MS,
): Promise<RegionAggregates> {
  const url = `${baseUrl}/regions/v1/aggregates`;
  const response = await fetchPeer(region, url, {
    headers: { authorization: `Bearer ${key}`, accept: "application/json" },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await readBoundedText(response, MAX_AGGREGATES_BYTES, "its totals");
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${url} answered something other than JSON`);
  }
  return aggregatesOf(region, body);
}

/** Why a peer gave no totals, in the operator's words. */
function reasonOf(error: unknown): string {
  // The connection answered, but its body did not arrive before the timeout.
  if (error instanceof DOMException && error.name === "TimeoutError") return "its totals did not arrive in time";
  return error instanceof Error ? error.message : String(error);
}

/**
 * Every region's totals and their sum: `local` for this one (its failure rejects), each peer of
 * `baseUrls` asked with `key` in parallel (without a key, none can be asked).
 */
export async function summarizeRegions(options: {
  readonly self: string;
  readonly baseUrls: Readonly<Record<string, string>>;
  readonly key?: string;
  readonly local: () => Promise<RegionAggregates>;
  readonly timeoutMs?: number;
}): Promise<RegionsSummary> {
  const { self, baseUrls, key } = options;
  const peer = async (region: string): Promise<RegionSummaryEntry> => {
    if (key === undefined) return { region, self: false, error: "this host has no SCIMKIT_REGION_KEY to ask it with" };
    try {
      return { ...(await readPeerAggregates(region, baseUrls[region] ?? "", key, options.timeoutMs)), self: false };
    } catch (error) {
      return { region, self: false, error: reasonOf(error) };
    }
  };
  const regions = await Promise.all(
    [...new Set([self, ...Object.keys(baseUrls)])]
      .sort()
      .map(async (region): Promise<RegionSummaryEntry> => (region === self ? { ...(await options.local()), self: true } : peer(region))),
  );
  const total: { -readonly [K in keyof OrganizationTotals]: number } = { organizations: 0, users: 0, activeUsers: 0, groups: 0 };
  for (const entry of regions) {
    if ("error" in entry) continue;
    for (const name of COUNTS) total[name] += entry[name];
  }
  return { regions, total, complete: regions.every((entry) => !("error" in entry)) };
}
