/**
 * One client in a closed loop: it sends its next request as soon as the previous answer has
 * arrived, until stopped, and times each request to its last body byte. Organization A of the
 * noisy-neighbour scenario is such a client: one expensive request at a time, as an identity
 * provider's sync job is, not a flood.
 */
import { summarizeLatencies } from "./latency-summary.js";
import type { Answer, ShapeTiming } from "./noisy-neighbour-results.js";

/** One request of the loop; `body` is sent as is (pre-serialized, so the loop's cost stays small). */
export interface LoopRequest {
  readonly shape: string;
  readonly method: "GET" | "POST" | "PATCH";
  /** Path and query from the origin. */
  readonly path: string;
  readonly body?: string;
  readonly helper?: boolean;
}

export interface ClosedLoopSpec {
  readonly origin: string;
  readonly token: string;
  /** The next request; called once per request. */
  readonly next: () => LoopRequest;
  /** A request without an answer after this long is aborted and counted as `timeout`. */
  readonly timeoutMs: number;
}

export interface RunningLoop {
  /** Resolves once the first request has been sent. */
  readonly started: Promise<void>;
  /**
   * Sends no more requests from the moment it is called; resolves once the request in flight has
   * finished (or timed out) with the timings per shape.
   */
  stop(): Promise<ShapeTiming[]>;
}

export interface LoopSample {
  readonly ms: number;
  readonly status: string;
  readonly bodyBytes: number;
  readonly answer?: Answer;
  readonly operationStatuses?: Record<string, number>;
}

/** The `detail` of a SCIM error body, shortened; undefined when there is none. */
function detailOf(text: string): string | undefined {
  try {
    const detail = (JSON.parse(text) as Record<string, unknown>)["detail"];
    return typeof detail === "string" ? detail.slice(0, 300) : undefined;
  } catch {
    return text === "" ? undefined : text.slice(0, 300);
  }
}

/** The statuses of a BulkResponse's operations (RFC 7644 §3.7.3: `status` is a string). */
function operationStatusesOf(text: string): Record<string, number> | undefined {
  try {
    const operations = (JSON.parse(text) as Record<string, unknown>)["Operations"];
    if (!Array.isArray(operations)) return undefined;
    const counts: Record<string, number> = {};
    for (const operation of operations) {
      const status = String((operation as Record<string, unknown>)["status"]);
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  } catch {
    return undefined;
  }
}

/** Per-shape summary of the samples, in the order the shapes were first sent. */
export function summarizeShapes(samples: readonly (LoopSample & { readonly shape: string; readonly helper?: boolean })[]): ShapeTiming[] {
  const byShape = new Map<string, (LoopSample & { readonly helper?: boolean })[]>();
  for (const sample of samples) {
    const list = byShape.get(sample.shape) ?? [];
    list.push(sample);
    byShape.set(sample.shape, list);
  }
  return [...byShape.entries()].map(([shape, list]) => {
    const latency = summarizeLatencies(Float64Array.from(list.map((sample) => sample.ms)));
    const statusCodes: Record<string, number> = {};
    let operationStatuses: Record<string, number> | undefined;
    for (const sample of list) {
      statusCodes[sample.status] = (statusCodes[sample.status] ?? 0) + 1;
      for (const [status, count] of Object.entries(sample.operationStatuses ?? {})) {
        operationStatuses ??= {};
        operationStatuses[status] = (operationStatuses[status] ?? 0) + count;
      }
    }
    const refusal = list.find((sample) => !sample.status.startsWith("2"))?.answer;
    const bodyBytes = Math.max(...list.map((sample) => sample.bodyBytes));
    return {
      shape,
      ...(list[0]?.helper ? { helper: true } : {}),
      count: list.length,
      statusCodes,
      p50Ms: latency.p50Ms,
      maxMs: latency.maxMs,
      meanMs: latency.meanMs,
      ...(bodyBytes > 0 ? { bodyBytes } : {}),
      ...(refusal ? { refusal } : {}),
      ...(operationStatuses ? { operationStatuses } : {}),
    };
  });
}

async function send(spec: ClosedLoopSpec, request: LoopRequest): Promise<LoopSample> {
  const bodyBytes = request.body === undefined ? 0 : Buffer.byteLength(request.body);
  const started = performance.now();
  try {
    const response = await fetch(`${spec.origin}${request.path}`, {
      method: request.method,
      headers: {
        accept: "application/scim+json",
        authorization: `Bearer ${spec.token}`,
        ...(request.body === undefined ? {} : { "content-type": "application/scim+json" }),
      },
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.timeout(spec.timeoutMs),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    const ok = response.status >= 200 && response.status < 300;
    const detail = ok ? undefined : detailOf(text);
    const operationStatuses = ok && request.path.endsWith("/Bulk") ? operationStatusesOf(text) : undefined;
    return {
      ms,
      status: String(response.status),
      bodyBytes,
      ...(ok ? {} : { answer: { status: response.status, ...(detail === undefined ? {} : { detail }) } }),
      ...(operationStatuses ? { operationStatuses } : {}),
    };
  } catch (error) {
    const ms = performance.now() - started;
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return {
      ms,
      status: timedOut ? "timeout" : "error",
      bodyBytes,
      answer: { status: 0, detail: timedOut ? `no answer within ${spec.timeoutMs} ms` : String(error) },
    };
  }
}

/** Starts the loop. */
export function startClosedLoop(spec: ClosedLoopSpec): RunningLoop {
  const samples: (LoopSample & { shape: string; helper?: boolean })[] = [];
  let stopping = false;
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const loop = (async () => {
    while (!stopping) {
      const request = spec.next();
      const answered = send(spec, request);
      markStarted();
      const sample = await answered;
      samples.push({ ...sample, shape: request.shape, ...(request.helper ? { helper: true } : {}) });
    }
  })();
  return {
    started,
    async stop() {
      stopping = true;
      await loop;
      return summarizeShapes(samples);
    },
  };
}
