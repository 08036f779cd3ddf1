/**
 * One closed-loop load phase with autocannon: `connections` keep-alive connections, each sending
 * its next request as soon as the previous answer arrives, for `duration` seconds or until
 * `maxRequests` answers. Throughput counts 2xx answers only; latency percentiles are exact.
 */
import autocannon from "autocannon";
import { sampleBuffer, summarizeLatencies, type LatencySummary } from "./latency-summary.js";

/** The next request to send. */
export interface LoadRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path and query, starting with `/`. */
  readonly path: string;
  readonly body?: unknown;
}

export interface LoadSpec {
  /** `http://127.0.0.1:port`. */
  readonly origin: string;
  readonly headers: Record<string, string>;
  /** Builds each request; called once per request sent. */
  readonly next: () => LoadRequest;
  /** Sees each answer's status and body (asking for bodies costs the load generator a little). */
  readonly onResponse?: (status: number, body: string) => void;
  readonly connections: number;
  readonly durationSec: number;
  readonly maxRequests?: number;
  readonly timeoutSec: number;
}

export interface LoadStats extends LatencySummary {
  /** 2xx answers per second of wall time. */
  readonly rps: number;
  readonly ok: number;
  /** Connection errors + timeouts + non-2xx answers. */
  readonly errors: number;
  readonly non2xx: number;
  readonly timeouts: number;
  readonly statusCodes: Record<string, number>;
  readonly elapsedSec: number;
}

/** Runs the phase. */
export async function runLoad(spec: LoadSpec): Promise<LoadStats> {
  const samples = sampleBuffer();
  let ok = 0;
  const statusCodes: Record<string, number> = {};
  const contentHeaders = { ...spec.headers, "content-type": "application/scim+json" };
  const instance = autocannon({
    url: spec.origin,
    connections: Math.max(1, Math.min(spec.connections, spec.maxRequests ?? Number.POSITIVE_INFINITY)),
    duration: spec.durationSec,
    ...(spec.maxRequests ? { maxOverallRequests: spec.maxRequests } : {}),
    timeout: spec.timeoutSec,
    headers: spec.headers,
    requests: [
      {
        setupRequest: (request) => {
          const next = spec.next();
          if (next.body === undefined) return { ...request, method: next.method, path: next.path, headers: spec.headers, body: "" };
          return { ...request, method: next.method, path: next.path, headers: contentHeaders, body: JSON.stringify(next.body) };
        },
        ...(spec.onResponse ? { onResponse: (status: number, body: string) => spec.onResponse?.(status, body) } : {}),
      },
    ],
  });
  let started = performance.now();
  instance.on("start", () => {
    started = performance.now();
  });
  // autocannon notices a reached cap only at its next 1 s tick: time a capped phase to its last answer.
  let answers = 0;
  let capReachedAt: number | undefined;
  instance.on("response", (_client, statusCode, _bytes, responseTimeMs) => {
    answers += 1;
    if (spec.maxRequests !== undefined && answers >= spec.maxRequests && capReachedAt === undefined) capReachedAt = performance.now();
    statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
    if (statusCode >= 200 && statusCode < 300) {
      ok += 1;
      samples.push(responseTimeMs);
    }
  });
  const result = await instance;
  const elapsedSec = ((capReachedAt ?? performance.now()) - started) / 1000;
  const latency = summarizeLatencies(samples.values());
  return {
    ...latency,
    rps: ok / elapsedSec,
    ok,
    errors: result.errors + result.non2xx,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
    statusCodes,
    elapsedSec,
  };
}
