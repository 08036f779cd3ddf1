/**
 * Where RFC 9967 receivers and their delivery state are kept (issue 20): the extension point a
 * deployment implements for its own database. `memoryEventReceiverStore` and
 * `sqlEventReceiverStore` are the references.
 */
import type { SecurityEventForm, SecurityEventUri } from "./security-event-uris.js";

/**
 * How a receiver gets its SETs: `push`, we POST each to its URL (RFC 8935); `poll`, it asks for
 * them at our poll endpoint and acknowledges them (RFC 8936), for a receiver we cannot reach.
 */
export type EventDeliveryMethod = "push" | "poll";

/** What an operator gives to register a receiver. */
export interface EventReceiverInput {
  /**
   * Where SETs are pushed (RFC 8935 §2): an `https:` URL (`http:` only for tests and local
   * receivers). For a poll receiver, the receiver's own URL, for the operator (never called).
   */
  readonly url: string;
  /** `push` (default) or `poll`. */
  readonly delivery?: EventDeliveryMethod;
  /** The event URIs to send; empty or absent for every one scimkit sends. */
  readonly events?: readonly SecurityEventUri[];
  /** `full` (the resource) or `notice` (what changed). Default `notice`: no personal data leaves unless asked. */
  readonly form?: SecurityEventForm;
  /** The `aud` claim of its SETs (RFC 8417 §2.2). Default: `url`. */
  readonly audience?: string;
  /**
   * Push: the `Authorization` header value the receiver requires on pushes (RFC 8935 §2.2), if any.
   * Poll: the `Authorization` header value the receiver must send to the poll endpoint (required).
   */
  readonly authorization?: string;
  /** Free text for the operator. */
  readonly label?: string;
}

/** A registered receiver and where its delivery stands. */
export interface EventReceiver {
  /** The organization whose events it receives. */
  readonly orgId: string;
  /** Its id, unique in the organization (a UUID v7). */
  readonly id: string;
  readonly url: string;
  readonly delivery: EventDeliveryMethod;
  /** The event URIs it gets; empty for all. */
  readonly events: readonly SecurityEventUri[];
  readonly form: SecurityEventForm;
  readonly audience: string;
  readonly authorization?: string;
  readonly label?: string;
  /** ISO 8601 time of registration. */
  readonly createdAt: string;
  /** The sequence of the organization's last event it has been given or skipped (`OutboxEvent.sequence`). */
  readonly position: number;
  /** Failed pushes in a row of the event after `position`; 0 when the last push succeeded. */
  readonly attempts: number;
  /** ISO 8601 time before which no push is tried (backoff after a failure); absent when due. */
  readonly nextAttemptAt?: string;
  /** The last failure, retried or rejected: what an operator reads. */
  readonly lastError?: DeliveryFailure;
  /** ISO 8601 time of the last accepted push. */
  readonly lastDeliveredAt?: string;
  /** How many SETs the receiver accepted. */
  readonly delivered: number;
  /** How many SETs it rejected for good (RFC 8935 §2.3, a 400): skipped after the failure was kept. */
  readonly rejected: number;
  /**
   * How many of the organization's events it never got because it lagged beyond the backlog the
   * outbox keeps (`SecurityEventDeliveryOptions.backlog`): RFC 8935 and RFC 8936 have no way to
   * tell a receiver of a gap, so it is told here and in `lastError`.
   */
  readonly dropped: number;
}

/** Why a push failed. */
export interface DeliveryFailure {
  /** ISO 8601 time of the failure. */
  readonly at: string;
  /** The `jti` of the SET that failed. */
  readonly jti: string;
  /** The HTTP status, or absent for a network failure or timeout. */
  readonly status?: number;
  /**
   * RFC 8935 §2.4 `err` when the receiver answered with a registered one, else a short cause:
   * `"http"`, `"redirect"` (never followed), `"timeout"`, `"network"`, `"address"` (the
   * address policy refused the receiver's host). A poll receiver's own `setErrs` code as it sent it.
   */
  readonly error: string;
  /**
   * What failed, in the service's own words — never the receiver's answer, which a receiver URL
   * pointed at some other service would read back; a poll receiver's own `setErrs` description.
   */
  readonly description?: string;
}

/** Names one receiver: its organization and its id. */
export interface EventReceiverKey {
  readonly orgId: string;
  readonly id: string;
}

/** What `EventReceiverStore.claimDue` asks for. */
export interface ClaimReceiversRequest {
  /** ISO 8601 time now. */
  readonly now: string;
  /** ISO 8601 time until which the claimed receivers are the caller's to push to. */
  readonly leaseUntil: string;
  /** Most receivers to claim. */
  readonly limit: number;
  /**
   * Claim only receivers after this one in (organization, id) order: a pass walks every receiver
   * once, claiming from where its last claim ended. Absent: from the first.
   */
  readonly after?: EventReceiverKey;
}

/** A delivery round's outcome for one receiver, written when the round ends. */
export interface DeliveryProgress {
  /** The new position: the last event given or skipped. */
  readonly position: number;
  /** SETs accepted in the round. */
  readonly delivered: number;
  /** SETs rejected for good in the round. */
  readonly rejected: number;
  /** ISO 8601 time of the last accepted push of the round, if any. */
  readonly lastDeliveredAt?: string;
  /** The failure that ended the round, or the last rejection; stores cut its texts (`boundedDeliveryFailure`). */
  readonly lastError?: DeliveryFailure;
  /** Failed attempts in a row at the new position (0 after a success). */
  readonly attempts: number;
  /** When to try again after a failure; absent when due at once. */
  readonly nextAttemptAt?: string;
  /**
   * ISO 8601 time to extend the lease to, for progress saved in the middle of a round; absent
   * ends the lease.
   */
  readonly leaseUntil?: string;
}

/** What `EventReceiverStore.skip` records: events a lagging receiver will never get. */
export interface SkippedEvents {
  /** The sequence its position moves up to (never back): the last event dropped. */
  readonly through: number;
  /** What its `lastError` becomes, saying why. */
  readonly failure: DeliveryFailure;
}

/**
 * Receivers and their delivery state. A deliverer claims the receivers that are due, pushes to each
 * in order, and saves its progress; a claim is a lease, so two processes never push to one receiver
 * at once (which would break the order per resource).
 *
 * @example
 * const receivers = memoryEventReceiverStore();
 * await receivers.add("acme", { url: "https://receiver.example/events", form: "full" }, 0);
 */
export interface EventReceiverStore {
  /** Registers a receiver of `orgId` that starts after event `position` (0: from the first). */
  add(orgId: string, input: EventReceiverInput, position: number): Promise<EventReceiver>;
  /** The receivers of `orgId`, oldest first, with their state. */
  list(orgId: string): Promise<readonly EventReceiver[]>;
  /** One receiver, or `undefined`. */
  get(orgId: string, id: string): Promise<EventReceiver | undefined>;
  /** Removes a receiver; false when there was none. */
  remove(orgId: string, id: string): Promise<boolean>;
  /**
   * Leases push receivers whose backoff has passed and whose lease has ended, until `leaseUntil`,
   * and returns them in (organization, id) order after `request.after`, at most `limit` (poll
   * receivers are never claimed: they come to us). Two callers never hold one receiver at once
   * while its lease lasts. A store that sees the outbox (the SQL store: the same database; the
   * memory store given `outbox`) claims only receivers with an event after their position, so an
   * idle receiver costs nothing; one that cannot tell returns caught-up receivers too, and the
   * delivery finds nothing for them once per pass.
   */
  claimDue(request: ClaimReceiversRequest): Promise<readonly EventReceiver[]>;
  /**
   * Saves progress (adding `delivered` and `rejected` to the totals) and ends the lease, or extends
   * it to `progress.leaseUntil`. The position never moves back: a deliverer that read the receiver
   * before a `skip` does not undo it.
   */
  saveProgress(orgId: string, id: string, progress: DeliveryProgress): Promise<void>;
  /**
   * Moves a receiver that lags behind `skipped.through` up to it, adds the events passed over to
   * `dropped` and keeps `skipped.failure` as its last error, leaving its lease and backoff as they
   * are; nothing when it is there already. The outbox prunes those events next.
   */
  skip(orgId: string, id: string, skipped: SkippedEvents): Promise<void>;
}

/** A key that signed an organization's SETs before a rotation: its public half stays in the JWKS for a while. */
export interface RetiredSigningKey {
  /** Its key id: the `kid` of the SETs it signed. */
  readonly kid: string;
  /** The public JWK, JSON (the private half is not kept once it stops signing). */
  readonly publicJwk: string;
  /** ISO 8601 time it stopped signing: its retention counts from here. */
  readonly retiredAt: string;
}

/** One organization's key for signing SETs, as kept: JWKs (RFC 7517) as JSON text. */
export interface StoredSigningKey {
  readonly orgId: string;
  /** The key id: the `kid` of every SET it signs and of its entry in the JWKS. */
  readonly kid: string;
  /** The private JWK, JSON. */
  readonly privateJwk: string;
  /** The public JWK, JSON. */
  readonly publicJwk: string;
  /** ISO 8601 time of creation. */
  readonly createdAt: string;
  /**
   * The keys it replaced that are still within their retention, newest first; absent when there
   * are none (a first key). They travel with the signing key, so one write rotates both.
   */
  readonly retired?: readonly RetiredSigningKey[];
}

/**
 * Where each organization's SET signing key is kept, with the keys it replaced. One signing key per
 * organization at a time: the first stored stays (two processes that create one at once keep the
 * same), and a rotation replaces it only if it is still the key the rotation read (two processes
 * that rotate at once leave one).
 */
export interface SigningKeyRepository {
  /** The organization's key, or `undefined` before it has one. */
  get(orgId: string): Promise<StoredSigningKey | undefined>;
  /** Stores `key` unless the organization has one already, and resolves with the one kept. */
  addIfAbsent(key: StoredSigningKey): Promise<StoredSigningKey>;
  /**
   * Stores `next` (with its `retired` list) in place of the organization's key if that key's `kid`
   * is still `currentKid`, in one atomic step, and resolves with the key kept: `next`, or the key
   * another rotation stored first. Resolves with `undefined` when the organization has no key.
   */
  replaceIfCurrent(currentKid: string, next: StoredSigningKey): Promise<StoredSigningKey | undefined>;
}
