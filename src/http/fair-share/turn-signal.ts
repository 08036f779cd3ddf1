/**
 * `turnSignal`: how long a request waits for its fair-share turn (architecture §4b). It stops
 * waiting when its client leaves, and when it has waited as long as the router allows: then it is
 * answered 429 with `Retry-After` — the service is busy with this organization's own work — rather
 * than left to the HTTP server's request timeout, which answers a body still unread with a bare 408.
 */
import type { Request, Response } from "express";
import { scimError, type ScimError } from "../../errors.js";
import { clientGoneSignal } from "./client-gone-signal.js";

/** The signal to pass to `ExpensiveWorkGate.acquire`, and what to call once the turn came. */
export interface TurnSignal {
  readonly signal: AbortSignal;
  /** Stops the clock: the request has its permit, or gave up. */
  done(): void;
}

/** `Retry-After` bounds: a whole second at least (RFC 9110 §10.2.3), a minute at most. */
const MIN_RETRY_SECONDS = 1;
const MAX_RETRY_SECONDS = 60;

/**
 * The HTTP server's `requestTimeout` for `request`, when it has one: Node answers 408 to a request
 * whose body has not all arrived by then, and a body waiting for its turn is not being read.
 */
function serverRequestTimeout(request: Request): number | undefined {
  const server = (request.socket as { server?: { requestTimeout?: unknown } } | undefined)?.server;
  const timeout = server?.requestTimeout;
  return typeof timeout === "number" && timeout > 0 ? timeout : undefined;
}

function waitedTooLong(waitMs: number): ScimError {
  const seconds = Math.min(MAX_RETRY_SECONDS, Math.max(MIN_RETRY_SECONDS, Math.ceil(waitMs / 1000)));
  return scimError(
    "tooManyRequests",
    `This request waited ${seconds} s for its turn behind this organization's other expensive requests ` +
      `(lists that filter without an index or sort, deep startIndex or large count pages, /Bulk, large bodies) and was not run. ` +
      `Retry after ${seconds} s, or send such requests one at a time; lookups by id, userName or externalId never wait. ` +
      `An operator can change the wait with the router's fairShare.maxWaitMs option.`,
    { retryAfter: seconds },
  );
}

/**
 * How long a request whose body is not read yet may wait for its turn: `maxWaitMs`, and no more
 * than half the server's `requestTimeout`, so the 429 comes before Node's 408 and leaves the
 * other half to read the body.
 */
export function bodyWaitMs(request: Request, maxWaitMs: number): number {
  const serverLimit = serverRequestTimeout(request);
  return serverLimit === undefined ? maxWaitMs : Math.min(maxWaitMs, Math.floor(serverLimit / 2));
}

/**
 * The signal of one wait for a turn: aborted with the client-gone reason of `clientGoneSignal`,
 * or after `waitMs` with a 429 `ScimError`.
 */
export function turnSignal(response: Response, waitMs: number): TurnSignal {
  const gone = clientGoneSignal(response);
  const controller = new AbortController();
  const onGone = (): void => controller.abort(gone.reason);
  if (gone.aborted) onGone();
  else gone.addEventListener("abort", onGone, { once: true });
  const timer = setTimeout(() => controller.abort(waitedTooLong(waitMs)), waitMs);
  // A pending wait never keeps the process alive on its own.
  timer.unref();
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      gone.removeEventListener("abort", onGone);
    },
  };
}
