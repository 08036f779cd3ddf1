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
import type {
  DeliveryFailure,
  DeliveryProgress,
  EventReceiver,
  EventReceiverInput,
  EventReceiverKey,
  EventReceiverStore,
} from "./event-receiver-store.js";
import type { EventSigningKeys } from "./event-signing-keys.js";
import { hashToken, sameTokenHash, unmatchableTokenHash } from "../auth/hash-token.js";
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

/** Receivers claimed at a time. */
const CLAIM_LIMIT = 20;

/** What a delivery round, or a pass of rounds, did. */
interface Round {
  /** SETs accepted. */
  readonly accepted: number;
  /** Whether a receiver has more to deliver than the round took. */
  readonly more: boolean;
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
  const backlogMaxEvents = positive("backlog.maxEvents", options.backlog?.maxEvents, DEFAULT_BACKLOG_MAX_EVENTS);
  const backlogMaxAgeMs = positive("backlog.maxAgeMs", options.backlog?.maxAgeMs, DEFAULT_BACKLOG_MAX_AGE_MS);
  const pollMaxEvents = positive("poll.maxEvents", options.poll?.maxEvents, 100);
  const pollMaxBytes = positive("poll.maxBytes", options.poll?.maxBytes, 512 * 1024);
  const maxReceivers = positive("maxReceiversPerOrganization", options.maxReceiversPerOrganization, DEFAULT_MAX_RECEIVERS_PER_ORGANIZATION);
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const addressPolicy = outboundAddressPolicy({ allowSetting: "receiverAddressPolicy.allowHosts", ...options.receiverAddressPolicy });
  const post = pinnedPost(addressPolicy);
  const { outbox, receivers, keys } = options;

  // Set by `stop()`: the pass under way claims nothing more and each round ends after its current push.
  let stopping = false;

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
    // RFC 8936 §2.4: the transmitter may return fewer than `maxEvents`; it never returns more than its bound.
    const maxEvents = Math.min(pollMaxEvents, Math.max(0, Math.floor(request.maxEvents ?? pollMaxEvents)));
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
    let bytes = 0;
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
        const token = await signFor(receiver, event, uri);
        // At least one SET per answer, however large, or a receiver could never move on.
        if (count > 0 && bytes + token.length > pollMaxBytes) {
          moreAvailable = true;
          break collecting;
        }
        sets[event.jti] = token;
        bytes += token.length;
        count += 1;
      }
    }
    return { sets, moreAvailable };
  };

  /**
   * One round for `receiver`: delivers what one outbox read holds for it (`batchSize` events),
   * saving after each event, then ends its lease. Resolves with the SETs accepted and whether more
   * wait: a round is bounded, so a receiver with a long backlog does not hold a pass while the
   * others wait, and picks up in the next pass.
   */
  const deliverTo = async (receiver: EventReceiver): Promise<Round> => {
    let position = receiver.position;
    let attempts = receiver.attempts;
    let accepted = 0;
    let more = false;
    try {
      const events = await outbox.read({ orgId: receiver.orgId, after: position, limit: batchSize });
      for (const event of events) {
        if (stopping) {
          more = true;
          break;
        }
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
          return { accepted, more: false };
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
      more ||= events.length >= batchSize;
      await receivers.saveProgress(receiver.orgId, receiver.id, { position, delivered: 0, rejected: 0, attempts });
    } catch (error) {
      // The lease runs out and another pass takes the receiver up where it was saved.
      onError(error);
    }
    return { accepted, more };
  };

  /**
   * One pass: walks the due receivers once in (organization, id) order, `CLAIM_LIMIT` at a time,
   * each claim starting after the last receiver of the one before — so every due receiver gets a
   * round, none gets two, and the pass ends. It stops claiming once `stop()` is called.
   */
  const pass = async (): Promise<Round> => {
    let accepted = 0;
    let more = false;
    let after: EventReceiverKey | undefined;
    while (!stopping) {
      const due = await receivers.claimDue({
        now: new Date().toISOString(),
        leaseUntil: later(leaseMs),
        limit: CLAIM_LIMIT,
        ...(after === undefined ? {} : { after }),
      });
      const last = due.at(-1);
      if (last === undefined) break;
      // Side by side: a receiver that times out holds up only itself.
      for (const round of await Promise.all(due.map(deliverTo))) {
        accepted += round.accepted;
        more ||= round.more;
      }
      if (due.length < CLAIM_LIMIT) break;
      after = { orgId: last.orgId, id: last.id };
    }
    return { accepted, more };
  };

  const runOnce = async (): Promise<number> => (await pass()).accepted;

  /**
   * The last event of `orgId` beyond the backlog bound, at or after `from`: the newest that is
   * over `backlogMaxEvents` back from `last` or older than `backlogMaxAgeMs`; `from` when none is.
   * Reads forward from `from` only while events are too old, so at most `backlogMaxEvents` events.
   */
  const backlogBound = async (orgId: string, from: number, last: number): Promise<number> => {
    let bound = Math.max(from, last - backlogMaxEvents);
    const oldest = new Date(Date.now() - backlogMaxAgeMs).toISOString();
    for (;;) {
      const events = await outbox.read({ orgId, after: bound, limit: batchSize });
      for (const event of events) {
        if (event.recordedAt >= oldest) return bound;
        bound = event.sequence;
      }
      if (events.length < batchSize) return bound;
    }
  };

  const authorizesPoll = async (orgId: string, id: string, authorization: string | undefined): Promise<boolean> => {
    const receiver = await receivers.get(orgId, id);
    const expected = receiver?.delivery === "poll" && receiver.authorization ? receiver.authorization : undefined;
    const given = hashToken(authorization ?? "");
    // A receiver registered before digests were kept holds the value itself: compared as a digest too.
    const stored = expected === undefined ? unmatchableTokenHash : /^[0-9a-f]{64}$/.test(expected) ? expected : hashToken(expected);
    return sameTokenHash(given, stored) && expected !== undefined && authorization !== undefined;
  };

  const prune = async (orgId: string): Promise<number> => {
    const all = await receivers.list(orgId);
    const last = await outbox.lastSequence(orgId);
    const lowest = Math.min(last, ...all.map((receiver) => receiver.position));
    const through = await backlogBound(orgId, lowest, last);
    const behind = all.filter((receiver) => receiver.position < through);
    if (behind.length > 0) {
      const [lastDropped] = await outbox.read({ orgId, after: through - 1, limit: 1 });
      const at = new Date().toISOString();
      for (const receiver of behind) {
        await receivers.skip(orgId, receiver.id, {
          through,
          failure: {
            at,
            jti: lastDropped?.jti ?? "",
            error: "dropped",
            description: `${through - receiver.position} event(s) up to sequence ${through} were dropped unsent: the receiver lagged beyond the backlog kept for it (the newest ${backlogMaxEvents} events, none older than ${Math.round(backlogMaxAgeMs / 3_600_000)} h).`,
          },
        });
      }
    }
    return outbox.prune(orgId, through);
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  const tick = (): void => {
    let again = false;
    running = pass()
      .then(
        (round) => {
          again = round.more;
        },
        (error: unknown) => onError(error),
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
    authorizesPoll,
    receivers: (orgId) => receivers.list(orgId),
    poll,
    prune,
    removeReceiver: (orgId, id) => receivers.remove(orgId, id),
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      stopping = false;
      tick();
    },
    async stop() {
      stopped = true;
      stopping = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
