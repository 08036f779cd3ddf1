/**
 * The memory store's event outbox (`EventOutbox`): the events of each write kept beside the
 * resources, recorded synchronously inside the write so no other write can come between them. Lost
 * with the process, as the resources are.
 */
import type { AppendEventsOptions, EventOutbox, OutboxEvent, OutboxEventInput } from "../event-outbox.js";

/** The outbox and the synchronous append the memory store's writes call. */
export interface MemoryEventOutbox extends EventOutbox {
  /** Forgets every event of `orgId`, as its organization is deleted; its sequence starts again at 1. */
  forget(orgId: string): void;
  /** Records `inputs` at once, as part of the calling write. */
  record(orgId: string, inputs: readonly OutboxEventInput[], options: AppendEventsOptions): readonly OutboxEvent[];
}

interface Kept {
  readonly event: OutboxEvent;
  delivered: boolean;
  leaseUntil: string;
}

/** An empty outbox; `now` is the store's clock. */
export function memoryEventOutbox(now: () => string): MemoryEventOutbox {
  const byOrg = new Map<string, Kept[]>();
  // How many of an organization's first events were pruned: sequence n sits at index n - 1 - base.
  const base = new Map<string, number>();
  const baseOf = (orgId: string): number => base.get(orgId) ?? 0;
  // By organization and jti: unique within an organization, as the SQL store keeps it.
  const byJti = new Map<string, Kept>();
  const jtiKey = (orgId: string, jti: string): string => JSON.stringify([orgId, jti]);
  // Only the undelivered, so a claim never walks the whole history.
  const pending = new Set<Kept>();

  const record = (orgId: string, inputs: readonly OutboxEventInput[], options: AppendEventsOptions): readonly OutboxEvent[] => {
    if (inputs.length === 0) return [];
    let kept = byOrg.get(orgId);
    if (!kept) {
      kept = [];
      byOrg.set(orgId, kept);
    }
    const recordedAt = now();
    const recorded: OutboxEvent[] = [];
    // The events of one write usually carry one resource (`updated` and `deactivated`): copied once.
    const copies = new Map<OutboxEventInput["resource"], OutboxEventInput["resource"]>();
    for (const input of inputs) {
      const key = jtiKey(orgId, input.jti);
      if (byJti.has(key)) throw new Error(`memoryStore: event ${input.jti} is already recorded`);
      let resource = copies.get(input.resource);
      if (resource === undefined) {
        resource = structuredClone(input.resource);
        copies.set(input.resource, resource);
      }
      const event: OutboxEvent = {
        ...input,
        resource,
        ...(input.memberIds ? { memberIds: [...input.memberIds] } : {}),
        orgId,
        sequence: baseOf(orgId) + kept.length + 1,
        recordedAt,
      };
      const entry: Kept = { event, delivered: !options.pending, leaseUntil: options.leaseUntil };
      kept.push(entry);
      byJti.set(key, entry);
      if (options.pending) pending.add(entry);
      recorded.push(event);
    }
    return recorded;
  };

  return {
    record,
    forget(orgId) {
      for (const kept of byOrg.get(orgId) ?? []) {
        byJti.delete(jtiKey(orgId, kept.event.jti));
        pending.delete(kept);
      }
      byOrg.delete(orgId);
      base.delete(orgId);
    },
    async append(orgId, events, options) {
      return record(orgId, events, options);
    },
    async read({ orgId, after, limit }) {
      const start = Math.max(0, after - baseOf(orgId));
      return (byOrg.get(orgId) ?? []).slice(start, start + Math.max(0, limit)).map((kept) => kept.event);
    },
    async claimPending({ limit, now: at, leaseUntil }) {
      const due = [...pending]
        .filter((kept) => kept.leaseUntil < at)
        .sort((a, b) => (a.event.orgId === b.event.orgId ? a.event.sequence - b.event.sequence : a.event.orgId < b.event.orgId ? -1 : 1))
        .slice(0, Math.max(0, limit));
      for (const kept of due) kept.leaseUntil = leaseUntil;
      return due.map((kept) => kept.event);
    },
    async markDelivered(events) {
      for (const { orgId, sequence } of events) {
        const kept = byOrg.get(orgId)?.[sequence - 1 - baseOf(orgId)];
        if (!kept) continue;
        kept.delivered = true;
        pending.delete(kept);
      }
    },
    async prune(orgId, through) {
      const kept = byOrg.get(orgId) ?? [];
      // A prefix only, up to the first event a listener still waits for: the index arithmetic stays.
      let count = 0;
      while (count < kept.length && (kept[count] as Kept).event.sequence <= through && (kept[count] as Kept).delivered) count += 1;
      for (const gone of kept.splice(0, count)) byJti.delete(jtiKey(orgId, gone.event.jti));
      if (count > 0) base.set(orgId, baseOf(orgId) + count);
      return count;
    },
    async lastSequence(orgId) {
      return baseOf(orgId) + (byOrg.get(orgId)?.length ?? 0);
    },
  };
}
