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
import type { EventOutbox } from "../store/event-outbox.js";
import type { EventReceiver, EventReceiverInput, EventReceiverStore } from "./event-receiver-store.js";
import type { EventSigningKeys } from "./event-signing-keys.js";
import { hashToken } from "../auth/hash-token.js";
import { deliveryPass } from "./delivery-pass.js";
import { authorizesPoll, type PollRequest, type PollResponse, pollSecurityEvents } from "./poll-security-events.js";
import { pruneOutbox } from "./prune-outbox.js";
import type { SecurityEventDeliveryState } from "./security-event-delivery-state.js";
import { isSecurityEventUri } from "./security-event-uris.js";

export type { PollRequest, PollResponse } from "./poll-security-events.js";

/** Exponential backoff of a failing receiver: `initialMs × factor^(attempts−1)`, at most `maxMs`, with up to 20 % jitter. */
export interface BackoffOptions {
  /** Default 1,000. */
  readonly initialMs?: number;
  /** Default 300,000 (5 minutes). */
  readonly maxMs?: number;
  /** Default 2. */
  readonly factor?: number;
}

/**
 * How much of an organization's event history the outbox keeps for receivers that lag (a push
 * receiver that is down, a poll receiver that stopped polling). Past it, `prune` drops the events
 * anyway: each receiver behind them moves past them, counts them in `dropped`, and has its
 * `lastError` say so.
 */
export interface BacklogOptions {
  /** Most events kept per organization, counted back from its last. Default 10,000. */
  readonly maxEvents?: number;
  /** Longest an event is kept for a receiver that has not got it, in milliseconds. Default 7 days. */
  readonly maxAgeMs?: number;
}

/** What one poll may return (RFC 8936 §2.4 lets the transmitter return fewer SETs than asked). */
export interface PollBoundOptions {
  /** Most SETs one answer holds, whatever `maxEvents` asks. Default 100. */
  readonly maxEvents?: number;
  /** Most bytes of SETs one answer holds (at least one SET is always sent). Default 524,288 (512 KB). */
  readonly maxBytes?: number;
}

/** The default of `BacklogOptions.maxEvents`. */
export const DEFAULT_BACKLOG_MAX_EVENTS = 10_000;
/** The default of `BacklogOptions.maxAgeMs`: 7 days. */
export const DEFAULT_BACKLOG_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

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
  /** The history kept for lagging receivers; see `BacklogOptions`. */
  readonly backlog?: BacklogOptions;
  /** The size of one poll's answer; see `PollBoundOptions`. */
  readonly poll?: PollBoundOptions;
  /**
   * Most receivers one organization may register: each costs a push per event and a row, and
   * holds the outbox back while it lags. Default 20.
   */
  readonly maxReceiversPerOrganization?: number;
}

/** Where a new receiver starts: after the organization's current last event, or at its first. */
export type ReceiverStart = "now" | "beginning";

/** An invalid receiver registration: the message says what to change. */
export class InvalidEventReceiverError extends Error {
  override readonly name = "InvalidEventReceiverError";
  /** Set when the registration is refused because the organization is at a quota: the bound. */
  readonly quota: number | undefined;

  constructor(message: string, quota?: number) {
    super(message);
    this.quota = quota;
  }
}

/** The default of `SecurityEventDeliveryOptions.maxReceiversPerOrganization`. */
export const DEFAULT_MAX_RECEIVERS_PER_ORGANIZATION = 20;

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
   * Whether `authorization` is the `Authorization` value poll receiver `id` of `orgId` was
   * registered with, compared as SHA-256 digests in constant time (the store keeps the digest);
   * false for an unknown receiver, at the same cost.
   */
  authorizesPoll(orgId: string, id: string, authorization: string | undefined): Promise<boolean>;
  /**
   * A poll by poll receiver `id` of `orgId` (RFC 8936): applies its acknowledgements in order — the
   * position moves past every event up to the first one it has not acknowledged — and returns the
   * next SETs. `undefined` when there is no such poll receiver.
   */
  poll(orgId: string, id: string, request: PollRequest): Promise<PollResponse | undefined>;
  /**
   * Deletes the events of `orgId` that every receiver has been given and no listener waits for
   * (`EventOutbox.prune` up to the lowest receiver position; all of them when it has no
   * receiver), and those beyond the backlog bound (`options.backlog`) whoever lags — moving the
   * receivers behind them past them (`EventReceiverStore.skip`) — and resolves with how many. Run
   * it now and then: the outbox keeps every event until something prunes it.
   */
  prune(orgId: string): Promise<number>;
  /**
   * One pass: every due receiver gets one round (up to `batchSize` of its events), none gets two;
   * resolves with the SETs accepted.
   */
  runOnce(): Promise<number>;
  /**
   * Runs a pass now and then one at a time on an unref'd timer: at once when a receiver was left
   * with more than a round, else after `intervalMs`.
   */
  start(): void;
  /**
   * Stops the timer and waits for the pass under way, which claims nothing more and ends each
   * round after its current push (at most `requestTimeoutMs`).
   */
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

/**
 * The state of the delivery `options` describe, each default applied and each figure checked (in
 * this order, so the first bad one is the one reported).
 */
function deliveryState(options: SecurityEventDeliveryOptions): SecurityEventDeliveryState & {
  readonly maxReceivers: number;
  readonly addressPolicy: OutboundAddressPolicy;
} {
  const figures = {
    leaseMs: positive("leaseMs", options.leaseMs, 30_000),
    batchSize: positive("batchSize", options.batchSize, 100),
    requestTimeoutMs: positive("requestTimeoutMs", options.requestTimeoutMs, 10_000),
    initialMs: positive("backoff.initialMs", options.backoff?.initialMs, 1000),
    maxMs: positive("backoff.maxMs", options.backoff?.maxMs, 300_000),
    invalidKeyAttempts: positive("invalidKeyAttempts", options.invalidKeyAttempts, 10),
    factor: positive("backoff.factor", options.backoff?.factor, 2),
    backlogMaxEvents: positive("backlog.maxEvents", options.backlog?.maxEvents, DEFAULT_BACKLOG_MAX_EVENTS),
    backlogMaxAgeMs: positive("backlog.maxAgeMs", options.backlog?.maxAgeMs, DEFAULT_BACKLOG_MAX_AGE_MS),
    pollMaxEvents: positive("poll.maxEvents", options.poll?.maxEvents, 100),
    pollMaxBytes: positive("poll.maxBytes", options.poll?.maxBytes, 512 * 1024),
    maxReceivers: positive("maxReceiversPerOrganization", options.maxReceiversPerOrganization, DEFAULT_MAX_RECEIVERS_PER_ORGANIZATION),
  };
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const addressPolicy = outboundAddressPolicy({ allowSetting: "receiverAddressPolicy.allowHosts", ...options.receiverAddressPolicy });
  return {
    ...figures,
    outbox: options.outbox,
    receivers: options.receivers,
    keys: options.keys,
    issuer: options.issuer,
    onError,
    addressPolicy,
    post: pinnedPost(addressPolicy),
    stopping: false,
  };
}

/**
 * The delivery of `options.outbox`'s events to the receivers in `options.receivers`.
 *
 * @example
 * const delivery = securityEventDelivery({ outbox: store.events, receivers, keys, issuer: (org) => `https://scim.example.com/o/${org}` });
 * delivery.start();
 */
export function securityEventDelivery(options: SecurityEventDeliveryOptions): SecurityEventDelivery {
  const intervalMs = positive("intervalMs", options.intervalMs, 1000);
  const state = deliveryState(options);
  const { outbox, receivers, keys } = options;
  const { maxReceivers, addressPolicy } = state;

  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  const tick = (): void => {
    let again = false;
    running = deliveryPass(state)
      .then(
        (round) => {
          again = round.more;
        },
        (error: unknown) => state.onError(error),
      )
      .finally(() => {
        running = undefined;
        if (stopped) return;
        // A receiver left with a backlog is taken up at once; otherwise the loop sleeps.
        timer = setTimeout(tick, again ? 0 : intervalMs);
        timer.unref();
      });
  };

  return {
    async addReceiver(orgId, input, start = "now") {
      checkReceiver(input);
      // A poll receiver's URL is never requested: it names the receiver, nothing connects to it.
      if (input.delivery !== "poll") await checkReceiverAddress(addressPolicy, input.url);
      // Checked before anything is written. Two registrations at once may both pass: the bound
      // is then passed by the few that raced, not by a flood.
      if ((await receivers.list(orgId)).length >= maxReceivers) {
        throw new InvalidEventReceiverError(
          `The organization has ${maxReceivers} event receivers, the most this service allows (maxReceiversPerOrganization): remove one before registering another.`,
          maxReceivers,
        );
      }
      // A poll receiver's credential is kept as its digest, as tokens are: a copy of the store holds none.
      const kept = input.delivery === "poll" && input.authorization ? { ...input, authorization: hashToken(input.authorization) } : input;
      const added = await receivers.add(orgId, kept, start === "beginning" ? 0 : await outbox.lastSequence(orgId));
      // The organization's signing key exists from its first receiver on, so the JWKS a receiver
      // fetches before its first SET already holds it.
      await keys.signingKey(orgId);
      return added;
    },
    authorizesPoll: (orgId, id, authorization) => authorizesPoll(state, orgId, id, authorization),
    receivers: (orgId) => receivers.list(orgId),
    poll: (orgId, id, request) => pollSecurityEvents(state, orgId, id, request),
    prune: (orgId) => pruneOutbox(state, orgId),
    removeReceiver: (orgId, id) => receivers.remove(orgId, id),
    runOnce: async () => (await deliveryPass(state)).accepted,
    start() {
      if (!stopped) return;
      stopped = false;
      state.stopping = false;
      tick();
    },
    async stop() {
      stopped = true;
      state.stopping = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
