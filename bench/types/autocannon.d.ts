/** The part of autocannon 9's programmatic API the bench uses (no @types package is installed). */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  namespace autocannon {
    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }
    interface Request extends RequestParams {
      /** Called before each request of this kind; returns the request to send. */
      setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | undefined;
      /** Called with each response; asking for it makes autocannon keep the body. */
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      maxOverallRequests?: number;
      timeout?: number;
      pipelining?: number;
      headers?: Record<string, string>;
      method?: string;
      body?: string;
      requests?: Request[];
      bailout?: number;
      excludeErrorStats?: boolean;
    }
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p99: number;
      total?: number;
      sent?: number;
    }
    interface Result {
      duration: number;
      start: Date;
      finish: Date;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      "1xx": number;
      "2xx": number;
      "3xx": number;
      "4xx": number;
      "5xx": number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram;
      throughput: Histogram;
    }
    interface Instance extends EventEmitter, PromiseLike<Result> {
      on(event: "response", listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void): this;
      on(event: "reqError", listener: (error: Error) => void): this;
      on(event: "start" | "done", listener: (...args: unknown[]) => void): this;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
