/**
 * The in-memory `EventReceiverStore` and `SigningKeyRepository`: for tests, demos and single-process
 * services; everything is lost with the process.
 */
import { v7 as uuidv7 } from "uuid";
import type { EventOutbox } from "../store/event-outbox.js";
import { boundedDeliveryFailure } from "./bounded-delivery-failure.js";
import type { EventReceiver, EventReceiverStore, SigningKeyRepository, StoredSigningKey } from "./event-receiver-store.js";

interface Kept {
  receiver: EventReceiver;
  leaseUntil: string;
}

/** Options of `memoryEventReceiverStore`. */
export interface MemoryEventReceiverStoreOptions {
  /** The clock. Default: the system's. */
  readonly now?: () => string;
  /**
   * The outbox the receivers' events are read from (`ResourceStore.events`): when given, a claim
   * skips receivers with no event after their position, so idle receivers are never leased.
   */
  readonly outbox?: Pick<EventOutbox, "lastSequence">;
}

/** (organization, id) order, as the SQL store claims. */
function byKey(a: EventReceiver, b: EventReceiver): number {
  if (a.orgId !== b.orgId) return a.orgId < b.orgId ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** An empty receiver store in memory. */
export function memoryEventReceiverStore(options: MemoryEventReceiverStoreOptions = {}): EventReceiverStore {
  const now = options.now ?? (() => new Date().toISOString());
  const kept = new Map<string, Kept>();
  const key = (orgId: string, id: string): string => JSON.stringify([orgId, id]);
  return {
    async add(orgId, input, position) {
      const receiver: EventReceiver = {
        orgId,
        id: uuidv7(),
        url: input.url,
        delivery: input.delivery ?? "push",
        events: [...(input.events ?? [])],
        form: input.form ?? "notice",
        audience: input.audience ?? input.url,
        ...(input.authorization === undefined ? {} : { authorization: input.authorization }),
        ...(input.label === undefined ? {} : { label: input.label }),
        createdAt: now(),
        position,
        attempts: 0,
        delivered: 0,
        rejected: 0,
        dropped: 0,
      };
      kept.set(key(orgId, receiver.id), { receiver, leaseUntil: "" });
      return receiver;
    },
    async list(orgId) {
      return [...kept.values()].filter((entry) => entry.receiver.orgId === orgId).map((entry) => entry.receiver);
    },
    async get(orgId, id) {
      return kept.get(key(orgId, id))?.receiver;
    },
    async remove(orgId, id) {
      return kept.delete(key(orgId, id));
    },
    async claimDue({ now: at, leaseUntil, limit, after }) {
      const candidates = [...kept.values()]
        .filter(({ receiver }) => after === undefined || byKey(receiver, { ...receiver, ...after }) > 0)
        .sort((a, b) => byKey(a.receiver, b.receiver));
      const isDue = ({ receiver, leaseUntil: held }: Kept): boolean =>
        receiver.delivery === "push" && held < at && (receiver.nextAttemptAt ?? "") <= at;
      const due: Kept[] = [];
      for (const entry of candidates) {
        if (due.length >= limit) break;
        if (!isDue(entry)) continue;
        if (options.outbox && (await options.outbox.lastSequence(entry.receiver.orgId)) <= entry.receiver.position) continue;
        due.push(entry);
      }
      // Checked again and leased with no await between: a claim running beside this one may have
      // leased one of them while this one awaited the outbox.
      const claimed = due.filter(isDue);
      for (const entry of claimed) entry.leaseUntil = leaseUntil;
      return claimed.map((entry) => entry.receiver);
    },
    async saveProgress(orgId, id, progress) {
      const entry = kept.get(key(orgId, id));
      if (!entry) return;
      const { nextAttemptAt: _next, lastError: _error, lastDeliveredAt: _last, ...rest } = entry.receiver;
      const lastError = progress.lastError === undefined ? entry.receiver.lastError : boundedDeliveryFailure(progress.lastError);
      const lastDeliveredAt = progress.lastDeliveredAt ?? entry.receiver.lastDeliveredAt;
      entry.receiver = {
        ...rest,
        position: Math.max(entry.receiver.position, progress.position),
        attempts: progress.attempts,
        delivered: entry.receiver.delivered + progress.delivered,
        rejected: entry.receiver.rejected + progress.rejected,
        ...(progress.nextAttemptAt === undefined ? {} : { nextAttemptAt: progress.nextAttemptAt }),
        ...(lastError === undefined ? {} : { lastError }),
        ...(lastDeliveredAt === undefined ? {} : { lastDeliveredAt }),
      };
      entry.leaseUntil = progress.leaseUntil ?? "";
    },
    async skip(orgId, id, { through, failure }) {
      const entry = kept.get(key(orgId, id));
      if (!entry || entry.receiver.position >= through) return;
      const { receiver } = entry;
      entry.receiver = {
        ...receiver,
        position: through,
        dropped: receiver.dropped + (through - receiver.position),
        lastError: boundedDeliveryFailure(failure),
      };
    },
  };
}

/** An empty signing-key repository in memory. */
export function memorySigningKeyRepository(): SigningKeyRepository {
  const keys = new Map<string, StoredSigningKey>();
  return {
    async get(orgId) {
      return keys.get(orgId);
    },
    async addIfAbsent(key) {
      const existing = keys.get(key.orgId);
      if (existing) return existing;
      keys.set(key.orgId, key);
      return key;
    },
    async replaceIfCurrent(currentKid, next) {
      const existing = keys.get(next.orgId);
      if (existing?.kid !== currentKid) return existing;
      keys.set(next.orgId, next);
      return next;
    },
  };
}
