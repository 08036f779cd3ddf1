/**
 * Pushing each organization's recorded events to its RFC 9967 receivers as signed SETs (RFC 8935),
 * off the request path: a loop claims the receivers that are due, and for each reads the events
 * after its position, in sequence order, and pushes them one at a time. The order per receiver is
 * the organization's commit order, so per resource too; a receiver that fails is retried with
 * exponential backoff from where it stopped, while the others go on. Delivery is at least once: a
 * process that dies between a push and saving it pushes again after the lease; the `jti` tells the
 * receiver it has seen it.
 *
 * Retries are a schedule kept with the receiver (`nextAttemptAt`), not a retry library's loop in
 * memory: they must outlive the process, and must not hold a connection or a timer per dead receiver.
 */
import {
  OutboundAddressRefusedError,
  outboundAddressPolicy,
  type OutboundAddressPolicy,
  type OutboundAddressPolicyOptions,
} from "../outbound/outbound-address-policy.js";
import { pinnedPost } from "../outbound/pinned-post.js";
import type { EventOutbox, OutboxEvent } from "../store/event-outbox.js";
import type { DeliveryFailure, DeliveryProgress, EventReceiver, EventReceiverInput, EventReceiverStore } from "./event-receiver-store.js";
import type { EventSigningKeys } from "./event-signing-keys.js";
import { pushFailureOfAnswer, pushFailureOfError } from "./push-failure.js";
import { securityEventClaims, signSecurityEvent } from "./security-event-token.js";
import { isSecurityEventUri, securityEventUriOf } from "./security-event-uris.js";

/** Exponential backoff of a failing receiver: `initialMs × factor^(attempts−1)`, at most `maxMs`, with up to 20 % jitter. */
export interface BackoffOptions {
  /** Default 1,000. */
  readonly initialMs?: number;
  /** Default 300,000 (5 minutes). */
  readonly maxMs?: number;
  /** Default 2. */
  readonly factor?: number;
}

/** Options of `securityEventDelivery`. */
export interface SecurityEventDeliveryOptions {
  /** The store's outbox (`ResourceStore.events`). */
  readonly outbox: EventOutbox;
  /** Where receivers and their state are kept. */
  readonly receivers: EventReceiverStore;
  /** The organizations' signing keys. */
  readonly keys: EventSigningKeys;
  /** The `iss` of an organization's SETs: its SCIM service, e.g. `https://scim.example.com/scim/Organizations/acme/v2`. */
  readonly issuer: (orgId: string) => string;
  /** How often `start()` looks for due receivers, in milliseconds. Default 1,000. */
  readonly intervalMs?: number;
  /** How long a claimed receiver is this process's, in milliseconds; extended after each push. Default 30,000. */
  readonly leaseMs?: number;
  /** Events read from the outbox at a time. Default 100. */
  readonly batchSize?: number;
  /** How long one push may take, in milliseconds. Default 10,000. */
  readonly requestTimeoutMs?: number;
  readonly backoff?: BackoffOptions;
  /**
   * Attempts at a SET the receiver refuses with RFC 8935 §2.4 `invalid_key` before it counts as
   * rejected for good. Default 10 (with the default backoff, about 13 minutes). A receiver caches
   * our JWKS (jose's `createRemoteJWKSet` refetches at most every 30 s, others for minutes), so
   * right after a key rotation it may refuse a SET signed with the new key that it will accept
   * once it has fetched the JWKS again; every other 400 is final at once.
   */
  readonly invalidKeyAttempts?: number;
  /**
   * The addresses push receivers may be at. By default none on loopback, private, link-local,
   * CGNAT, unique-local, metadata or other special-purpose addresses (`forbidden-address-ranges.ts`),
   * checked after DNS at registration and at every push, which connects only to the addresses
   * checked; `allowHosts` lets on-premises receivers through, e.g.
   * `{ allowHosts: ["siem.corp.example", "10.0.0.0/8"] }`. Redirects are never followed.
   */
  readonly receiverAddressPolicy?: OutboundAddressPolicyOptions;
  /** Receives unexpected failures of the loop (a database down). Default `console.error`. */
  readonly onError?: (error: unknown) => void;
}

/** Where a new receiver starts: after the organization's current last event, or at its first. */
export type ReceiverStart = "now" | "beginning";

/** An invalid receiver registration: the message says what to change. */
export class InvalidEventReceiverError extends Error {
  override readonly name = "InvalidEventReceiverError";
}

/** A poll (RFC 8936 §2.4): what the receiver acknowledges and asks for. */
export interface PollRequest {
  /** The `jti`s of SETs it has received and keeps. */
  readonly ack?: readonly string[];
  /** SETs it received and refuses, by `jti`, with why (RFC 8936 §2.4.4): acknowledged too, and kept as the last failure. */
  readonly setErrs?: Readonly<Record<string, { readonly err: string; readonly description?: string }>>;
  /** Most SETs to return; 0 only acknowledges. Default 100. */
  readonly maxEvents?: number;
}

/** The answer to a poll (RFC 8936 §2.5). */
export interface PollResponse {
  /** SETs by `jti`, oldest first: the ones not acknowledged yet, again until they are. */
  readonly sets: Readonly<Record<string, string>>;
  /** Whether more are waiting beyond `maxEvents`. */
  readonly moreAvailable: boolean;
}

/** The delivery loop and the receivers' API. */
export interface SecurityEventDelivery {
  /**
   * Registers a receiver of `orgId`, checked first (URL, event URIs, form); it gets the events
   * recorded from now on, or every kept one with `start: "beginning"`.
   */
  addReceiver(orgId: string, input: EventReceiverInput, start?: ReceiverStart): Promise<EventReceiver>;
  /** The receivers of `orgId` with their delivery state and last failure. */
  receivers(orgId: string): Promise<readonly EventReceiver[]>;
  /** Removes a receiver; false when there was none. */
  removeReceiver(orgId: string, id: string): Promise<boolean>;
  /**
   * A poll by poll receiver `id` of `orgId` (RFC 8936): applies its acknowledgements in order — the
   * position moves past every event up to the first one it has not acknowledged — and returns the
   * next SETs. `undefined` when there is no such poll receiver.
   */
  poll(orgId: string, id: string, request: PollRequest): Promise<PollResponse | undefined>;
  /**
   * Deletes the events of `orgId` that every receiver has been given and no listener waits for
   * (`EventOutbox.prune` up to the lowest receiver position; all of them when it has no
   * receiver), and resolves with how many. Run it now and then: the outbox keeps every event until
   * something prunes it.
   */
  prune(orgId: string): Promise<number>;
  /** One pass: every due receiver gets what it can; resolves with the SETs accepted. */
  runOnce(): Promise<number>;
  /** Runs a pass now and every `intervalMs` on an unref'd timer, one pass at a time. */
  start(): void;
  /** Stops the timer and waits for the pass under way. */
  stop(): Promise<void>;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`scimkit: ${name} must be a positive number; got ${String(value)}.`);
  return value;
}

/** Refuses a push receiver whose URL's host the address policy refuses (after DNS), naming the rule. */
async function checkReceiverAddress(policy: OutboundAddressPolicy, url: string): Promise<void> {
  try {
    await policy.check(new URL(url));
  } catch (error) {
    if (error instanceof OutboundAddressRefusedError) throw new InvalidEventReceiverError(`The receiver URL's host ${error.message}.`);
    throw error;
  }
}

function checkReceiver(input: EventReceiverInput): void {
  if (input.delivery !== undefined && input.delivery !== "push" && input.delivery !== "poll") {
    throw new InvalidEventReceiverError(`delivery must be "push" or "poll"; got ${JSON.stringify(input.delivery)}.`);
  }
  if (input.delivery === "poll" && !input.authorization) {
    throw new InvalidEventReceiverError("A poll receiver needs authorization: the Authorization header value it will send to poll.");
  }
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new InvalidEventReceiverError(`The receiver URL ${JSON.stringify(input.url)} is not an absolute URL.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new InvalidEventReceiverError(`The receiver URL must be https: (or http: for a local receiver); got ${url.protocol}.`);
  }
  for (const uri of input.events ?? []) {
    if (!isSecurityEventUri(uri)) throw new InvalidEventReceiverError(`${JSON.stringify(uri)} is not an RFC 9967 event URI scimkit sends.`);
  }
  if (input.form !== undefined && input.form !== "full" && input.form !== "notice") {
    throw new InvalidEventReceiverError(`form must be "full" or "notice"; got ${JSON.stringify(input.form)}.`);
  }
}

/** The outcome of one push. */
type PushOutcome =
  | { readonly kind: "accepted" }
  | { readonly kind: "rejected" | "failed" | "keyRefused"; readonly failure: DeliveryFailure };

/**
 * The delivery of `options.outbox`'s events to the receivers in `options.receivers`.
 *
 * @example
 * const delivery = securityEventDelivery({ outbox: store.events, receivers, keys, issuer: (org) => `https://scim.example.com/o/${org}` });
 * delivery.start();
 */
export function securityEventDelivery(options: SecurityEventDeliveryOptions): SecurityEventDelivery {
  const intervalMs = positive("intervalMs", options.intervalMs, 1000);
  const leaseMs = positive("leaseMs", options.leaseMs, 30_000);
  const batchSize = positive("batchSize", options.batchSize, 100);
  const requestTimeoutMs = positive("requestTimeoutMs", options.requestTimeoutMs, 10_000);
  const initialMs = positive("backoff.initialMs", options.backoff?.initialMs, 1000);
  const maxMs = positive("backoff.maxMs", options.backoff?.maxMs, 300_000);
  const invalidKeyAttempts = positive("invalidKeyAttempts", options.invalidKeyAttempts, 10);
  const factor = positive("backoff.factor", options.backoff?.factor, 2);
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const addressPolicy = outboundAddressPolicy({ allowSetting: "receiverAddressPolicy.allowHosts", ...options.receiverAddressPolicy });
  const post = pinnedPost(addressPolicy);
  const { outbox, receivers, keys } = options;

  const later = (ms: number): string => new Date(Date.now() + ms).toISOString();
  const backoffMs = (attempts: number): number => {
    const base = Math.min(maxMs, initialMs * factor ** Math.max(0, attempts - 1));
    // Jitter: receivers that failed together do not all come back at the same instant.
    return Math.round(base * (1 + Math.random() * 0.2));
  };

  /**
   * RFC 8935 §2: POST the SET; 2xx is accepted; 400 is a rejection of this SET for good. The
   * receiver's URL is the tenant's: the push goes only where the address policy lets it, and what
   * is kept of a failure is `push-failure.ts`'s words, never the receiver's.
   */
  const push = async (receiver: EventReceiver, event: OutboxEvent, token: string): Promise<PushOutcome> => {
    const at = new Date().toISOString();
    let answer: { readonly status: number; readonly body: string };
    try {
      answer = await post(new URL(receiver.url), {
        headers: {
          "Content-Type": "application/secevent+jwt",
          Accept: "application/json",
          ...(receiver.authorization ? { Authorization: receiver.authorization } : {}),
        },
        body: token,
        signal: AbortSignal.timeout(requestTimeoutMs),
        // An RFC 8935 §2.4 error object is a few hundred bytes; a larger body is not one.
        maxResponseBytes: 8192,
      });
    } catch (error) {
      return { kind: "failed", failure: { at, jti: event.jti, ...pushFailureOfError(error, requestTimeoutMs) } };
    }
    if (answer.status >= 200 && answer.status < 300) return { kind: "accepted" };
    const failure: DeliveryFailure = { at, jti: event.jti, ...pushFailureOfAnswer(answer.status, answer.body) };
    // RFC 8935 §2.4: a 400 says this SET is wrong (wrong audience, issuer, …); sending it again
    // would fail the same way and hold every later event back. Anything else may pass later, and
    // so may `invalid_key` for a while (`invalidKeyAttempts`).
    if (answer.status !== 400) return { kind: "failed", failure };
    return { kind: failure.error === "invalid_key" ? "keyRefused" : "rejected", failure };
  };

  /** Whether `receiver` gets `event`, and under which URI. */
  const uriFor = (receiver: EventReceiver, event: OutboxEvent) => {
    const uri = securityEventUriOf(event, receiver.form);
    return uri !== undefined && (receiver.events.length === 0 || receiver.events.includes(uri)) ? uri : undefined;
  };

  const signFor = async (receiver: EventReceiver, event: OutboxEvent, uri: NonNullable<ReturnType<typeof uriFor>>): Promise<string> => {
    const key = await keys.signingKey(receiver.orgId);
    const claims = securityEventClaims(event, {
      issuer: options.issuer(receiver.orgId),
      audience: receiver.audience,
      uri,
      form: receiver.form,
      issuedAt: Math.floor(Date.now() / 1000),
    });
    return signSecurityEvent(claims, key);
  };

  const poll = async (orgId: string, id: string, request: PollRequest): Promise<PollResponse | undefined> => {
    const receiver = await receivers.get(orgId, id);
    if (receiver?.delivery !== "poll") return undefined;
    const maxEvents = Math.max(0, Math.floor(request.maxEvents ?? 100));
    const errors = request.setErrs ?? {};
    const acknowledged = new Set([...(request.ack ?? []), ...Object.keys(errors)]);
    let position = receiver.position;
    let delivered = 0;
    let rejected = 0;
    let lastError: DeliveryFailure | undefined;
    // RFC 8936 §2.4: acknowledged SETs are not sent again. The position moves only past a prefix
    // of acknowledged (or unwanted) events, so one left out is sent again, and the order holds.
    acknowledging: while (acknowledged.size > 0) {
      const events = await outbox.read({ orgId, after: position, limit: batchSize });
      if (events.length === 0) break;
      for (const event of events) {
        if (uriFor(receiver, event) !== undefined) {
          if (!acknowledged.has(event.jti)) break acknowledging;
          const error = errors[event.jti];
          if (error) {
            rejected += 1;
            lastError = {
              at: new Date().toISOString(),
              jti: event.jti,
              error: error.err,
              ...(error.description ? { description: error.description } : {}),
            };
          } else {
            delivered += 1;
          }
        }
        position = event.sequence;
      }
    }
    if (position !== receiver.position) {
      await receivers.saveProgress(orgId, id, {
        position,
        delivered,
        rejected,
        attempts: 0,
        ...(delivered > 0 ? { lastDeliveredAt: new Date().toISOString() } : {}),
        ...(lastError ? { lastError } : {}),
      });
    }
    const sets: Record<string, string> = {};
    let count = 0;
    let after = position;
    let moreAvailable = false;
    collecting: for (;;) {
      const events = await outbox.read({ orgId, after, limit: batchSize });
      if (events.length === 0) break;
      for (const event of events) {
        after = event.sequence;
        const uri = uriFor(receiver, event);
        if (uri === undefined) continue;
        if (count >= maxEvents) {
          moreAvailable = true;
          break collecting;
        }
        sets[event.jti] = await signFor(receiver, event, uri);
        count += 1;
      }
    }
    return { sets, moreAvailable };
  };

  /** Delivers what `receiver` is due, saving after each event; resolves with the SETs accepted. */
  const deliverTo = async (receiver: EventReceiver): Promise<number> => {
    let position = receiver.position;
    let attempts = receiver.attempts;
    let accepted = 0;
    try {
      for (;;) {
        const events = await outbox.read({ orgId: receiver.orgId, after: position, limit: batchSize });
        if (events.length === 0) break;
        for (const event of events) {
          const uri = uriFor(receiver, event);
          if (uri === undefined) {
            position = event.sequence;
            continue;
          }
          const pushed = await push(receiver, event, await signFor(receiver, event, uri));
          const outcome: PushOutcome =
            pushed.kind === "keyRefused" ? { ...pushed, kind: attempts + 1 >= invalidKeyAttempts ? "rejected" : "failed" } : pushed;
          if (outcome.kind === "failed") {
            attempts += 1;
            await receivers.saveProgress(receiver.orgId, receiver.id, {
              position,
              delivered: 0,
              rejected: 0,
              attempts,
              lastError: outcome.failure,
              nextAttemptAt: later(backoffMs(attempts)),
            });
            return accepted;
          }
          position = event.sequence;
          attempts = 0;
          const progress: DeliveryProgress =
            outcome.kind === "accepted"
              ? { position, delivered: 1, rejected: 0, attempts, lastDeliveredAt: new Date().toISOString(), leaseUntil: later(leaseMs) }
              : { position, delivered: 0, rejected: 1, attempts, lastError: outcome.failure, leaseUntil: later(leaseMs) };
          await receivers.saveProgress(receiver.orgId, receiver.id, progress);
          if (outcome.kind === "accepted") accepted += 1;
        }
      }
      await receivers.saveProgress(receiver.orgId, receiver.id, { position, delivered: 0, rejected: 0, attempts });
    } catch (error) {
      // The lease runs out and another pass takes the receiver up where it was saved.
      onError(error);
    }
    return accepted;
  };

  const runOnce = async (): Promise<number> => {
    let total = 0;
    for (;;) {
      const due = await receivers.claimDue({ now: new Date().toISOString(), leaseUntil: later(leaseMs), limit: 20 });
      if (due.length === 0) return total;
      // Side by side: a receiver that times out holds up only itself.
      const counts = await Promise.all(due.map(deliverTo));
      total += counts.reduce((sum, count) => sum + count, 0);
      if (due.length < 20) return total;
    }
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  const tick = (): void => {
    running = runOnce()
      .then(
        () => undefined,
        (error: unknown) => onError(error),
      )
      .finally(() => {
        running = undefined;
        if (stopped) return;
        timer = setTimeout(tick, intervalMs);
        timer.unref();
      });
  };

  return {
    async addReceiver(orgId, input, start = "now") {
      checkReceiver(input);
      // A poll receiver's URL is never requested: it names the receiver, nothing connects to it.
      if (input.delivery !== "poll") await checkReceiverAddress(addressPolicy, input.url);
      return receivers.add(orgId, input, start === "beginning" ? 0 : await outbox.lastSequence(orgId));
    },
    receivers: (orgId) => receivers.list(orgId),
    poll,
    async prune(orgId) {
      const positions = (await receivers.list(orgId)).map((receiver) => receiver.position);
      const through = positions.length === 0 ? await outbox.lastSequence(orgId) : Math.min(...positions);
      return outbox.prune(orgId, through);
    },
    removeReceiver: (orgId, id) => receivers.remove(orgId, id),
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
