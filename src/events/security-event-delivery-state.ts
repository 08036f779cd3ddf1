/**
 * What the delivery of security events holds for its life: its settings with their defaults, the
 * outbox, receivers and keys it works over, the pinned POST of its pushes, and whether it is
 * stopping. `securityEventDelivery` builds it once; pushing, polling and pruning are functions of it.
 */
import type { PinnedPost } from "../outbound/pinned-post.js";
import type { EventOutbox } from "../store/event-outbox.js";
import type { EventReceiverStore } from "./event-receiver-store.js";
import type { EventSigningKeys } from "./event-signing-keys.js";

/** The state of one security event delivery. */
export interface SecurityEventDeliveryState {
  /** The store's outbox. */
  readonly outbox: EventOutbox;
  /** The receivers and their delivery state. */
  readonly receivers: EventReceiverStore;
  /** The organizations' signing keys. */
  readonly keys: EventSigningKeys;
  /** The `iss` of an organization's SETs. */
  readonly issuer: (orgId: string) => string;
  /** POSTs only to addresses the receiver address policy allows, connecting to the address checked. */
  readonly post: PinnedPost;
  /** Receives unexpected failures of the loop. */
  readonly onError: (error: unknown) => void;
  /** How long a claimed receiver is this process's, in milliseconds. */
  readonly leaseMs: number;
  /** Events read from the outbox at a time. */
  readonly batchSize: number;
  /** How long one push may take, in milliseconds. */
  readonly requestTimeoutMs: number;
  /** The first backoff, in milliseconds. */
  readonly initialMs: number;
  /** The longest backoff, in milliseconds. */
  readonly maxMs: number;
  /** How much longer each backoff is than the one before. */
  readonly factor: number;
  /** Attempts at a SET refused with `invalid_key` before it counts as rejected. */
  readonly invalidKeyAttempts: number;
  /** Most events kept per organization for lagging receivers. */
  readonly backlogMaxEvents: number;
  /** Longest an event is kept for a lagging receiver, in milliseconds. */
  readonly backlogMaxAgeMs: number;
  /** Most SETs in one poll's answer. */
  readonly pollMaxEvents: number;
  /** Most bytes of SETs in one poll's answer. */
  readonly pollMaxBytes: number;
  /** Set by `stop()`: the pass under way claims nothing more and each round ends after its current push. */
  stopping: boolean;
}

/** The ISO 8601 time `ms` from now. */
export function later(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

/** The backoff after `attempts` failures: `initialMs × factor^(attempts−1)`, at most `maxMs`, with up to 20 % jitter. */
export function backoffMs(state: SecurityEventDeliveryState, attempts: number): number {
  const base = Math.min(state.maxMs, state.initialMs * state.factor ** Math.max(0, attempts - 1));
  // Jitter: receivers that failed together do not all come back at the same instant.
  return Math.round(base * (1 + Math.random() * 0.2));
}
