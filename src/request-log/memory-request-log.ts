/**
 * `memoryRequestLog`: the provisioning log in process memory, for tests, development and hosts on
 * the memory store. A ring buffer: the newest `capacity` entries of every organization together,
 * so memory stays bounded however many organizations write; requests without a verified token
 * have a small ring of their own, sampled, so they never push an organization's entries out.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { boundUnauthenticatedEntry } from "./bound-unauthenticated-entry.js";
import { checkRequestLogQuery, checkUnauthenticatedQuery, type CheckedRequestLogQuery } from "./check-request-log-query.js";
import type {
  ReadableRequestLog,
  RequestLogPage,
  RequestLogQuery,
  UnauthenticatedRequestLogPage,
  UnauthenticatedRequestLogQuery,
} from "./readable-request-log.js";
import type { RequestLogEntry, UnauthenticatedRequestLogEntry } from "./request-log.js";
import { DEFAULT_UNAUTHENTICATED_CAPACITY, DEFAULT_UNAUTHENTICATED_PER_MINUTE, unauthenticatedSample } from "./unauthenticated-sample.js";

/** Options of `memoryRequestLog`. */
export interface MemoryRequestLogOptions {
  /**
   * Entries kept, all organizations together; the oldest go first. Default 10,000. With bodies of
   * up to `maxBodyBytes` each, size it to the memory it may take (10,000 × 2 × 64 KiB at worst).
   */
  readonly capacity?: number;
  /** `RequestLog.maxBodyBytes`: the most of each body an entry keeps. Default 65,536. */
  readonly maxBodyBytes?: number;
  /**
   * Requests without a verified token kept, every claimed organization together, in a ring of
   * their own (never `capacity`'s); the oldest go first. Default 1,000.
   */
  readonly unauthenticatedCapacity?: number;
  /** Requests without a verified token kept per minute; the rest are counted as dropped. Default 60. */
  readonly unauthenticatedPerMinute?: number;
  /** The clock of the unauthenticated sample, in milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/** A ring of the newest `capacity` items, each numbered from 1 in the order it came. */
interface Ring<T> {
  push(item: T): void;
  /** The items still held, newest first, from the one numbered `before - 1` down. */
  newestFirst(before: number): Generator<readonly [number, T]>;
}

function ring<T>(capacity: number): Ring<T> {
  const slots = new Array<{ readonly sequence: number; readonly item: T } | undefined>(capacity);
  let sequence = 0;
  return {
    push(item) {
      sequence += 1;
      slots[sequence % capacity] = { sequence, item };
    },
    *newestFirst(before) {
      const oldest = Math.max(1, sequence - capacity + 1);
      for (let at = Math.min(sequence, before - 1); at >= oldest; at--) {
        const slot = slots[at % capacity];
        if (slot !== undefined && slot.sequence === at) yield [at, slot.item] as const;
      }
    },
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`memoryRequestLog: ${name} must be a positive integer; got ${String(value)}.`);
  return value;
}

interface Slot {
  /** The entry without its bodies: what `list` filters on. */
  readonly head: RequestLogEntry;
  // The bodies, UTF-8 outside the JavaScript heap: a full ring holds `capacity` of each, and as
  // strings they made every major garbage collection of a busy server slower (measured: a GET
  // with a 10,000-entry ring cost 24% more CPU than with a 100-entry one).
  readonly requestBody?: Buffer;
  readonly responseBody?: Buffer;
}

function slotOf(entry: RequestLogEntry): Slot {
  const { requestBody, responseBody, ...head } = entry;
  return {
    head: Object.freeze(head),
    ...(requestBody === undefined ? {} : { requestBody: Buffer.from(requestBody, "utf8") }),
    ...(responseBody === undefined ? {} : { responseBody: Buffer.from(responseBody, "utf8") }),
  };
}

function entryOf(slot: Slot): RequestLogEntry {
  if (slot.requestBody === undefined && slot.responseBody === undefined) return slot.head;
  return Object.freeze({
    ...slot.head,
    ...(slot.requestBody === undefined ? {} : { requestBody: slot.requestBody.toString("utf8") }),
    ...(slot.responseBody === undefined ? {} : { responseBody: slot.responseBody.toString("utf8") }),
  });
}

/** Turns the ring's sequence numbers into cursors and back. */
interface CursorCodec {
  encode(sequence: number): string;
  decode(cursor: string): number | undefined;
}

/**
 * Cursors that do not show the sequence number: it counts the requests of every organization,
 * so a plain one would tell an organization's reader how busy the host is for the others. One
 * AES block under a key of this process (the log does not outlive it either).
 */
function cursorCodec(): CursorCodec {
  const key = randomBytes(32);
  const block = (direction: "encrypt" | "decrypt", input: Buffer): Buffer => {
    const cipher = direction === "encrypt" ? createCipheriv("aes-256-ecb", key, null) : createDecipheriv("aes-256-ecb", key, null);
    cipher.setAutoPadding(false);
    return Buffer.concat([cipher.update(input), cipher.final()]);
  };
  return {
    encode(sequence) {
      const plain = Buffer.alloc(16);
      plain.writeBigUInt64BE(BigInt(sequence), 8);
      return block("encrypt", plain).toString("base64url");
    },
    decode(cursor) {
      if (!/^[A-Za-z0-9_-]{22}$/.test(cursor)) return undefined;
      const plain = block("decrypt", Buffer.from(cursor, "base64url"));
      // The first half is zero in every cursor this log gave; anything else was made up or edited.
      if (plain.readBigUInt64BE(0) !== 0n) return undefined;
      const sequence = plain.readBigUInt64BE(8);
      return sequence >= 1n && sequence <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(sequence) : undefined;
    },
  };
}

/** The sequence number `cursor` stands for (∞ without one). */
function beforeOf(cursor: string | undefined, cursors: CursorCodec): number {
  if (cursor === undefined) return Number.POSITIVE_INFINITY;
  // The cursor is the sequence number of the previous page's last entry: it stays valid after
  // that entry leaves the ring (the page then simply continues with what is left).
  const at = cursors.decode(cursor);
  if (at === undefined) throw new RangeError(`request log: cursor ${JSON.stringify(cursor)} is not one this log gave.`);
  return at;
}

/** The checked query, and the sequence number its cursor stands for (∞ without one). */
function checkedQuery(query: RequestLogQuery, cursors: CursorCodec): CheckedRequestLogQuery & { readonly before: number } {
  const checked = checkRequestLogQuery(query);
  return { ...checked, before: beforeOf(query.cursor, cursors) };
}

/**
 * A `ReadableRequestLog` in memory, lost on restart. `list` scans the ring from the newest entry:
 * O(capacity) per page at worst, which is the price of a reference without indexes.
 *
 * @example
 * const log = memoryRequestLog({ capacity: 10_000 });
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth, requestLog: log }));
 */
export function memoryRequestLog(options: MemoryRequestLogOptions = {}): ReadableRequestLog {
  const capacity = positiveInteger("capacity", options.capacity ?? 10_000);
  const entries = ring<Slot>(capacity);
  const cursors = cursorCodec();
  const unauthenticated = ring<UnauthenticatedRequestLogEntry>(
    positiveInteger("unauthenticatedCapacity", options.unauthenticatedCapacity ?? DEFAULT_UNAUTHENTICATED_CAPACITY),
  );
  const unauthenticatedCursors = cursorCodec();
  const now = options.now ?? Date.now;
  const sample = unauthenticatedSample(
    positiveInteger("unauthenticatedPerMinute", options.unauthenticatedPerMinute ?? DEFAULT_UNAUTHENTICATED_PER_MINUTE),
    now,
  );
  const startedAt = new Date(now()).toISOString();

  return {
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),

    record(entry) {
      entries.push(slotOf(entry));
    },

    recordUnauthenticated(entry) {
      if (sample.admit()) unauthenticated.push(boundUnauthenticatedEntry(entry));
    },

    async list(orgId, query = {}): Promise<RequestLogPage> {
      const { limit, before, from, to } = checkedQuery(query, cursors);
      const page: RequestLogEntry[] = [];
      let last = 0;
      for (const [at, slot] of entries.newestFirst(before)) {
        const entry = slot.head;
        if (entry.orgId !== orgId) continue;
        if (query.statusClass !== undefined && Math.floor(entry.status / 100) !== query.statusClass) continue;
        if (query.resourceId !== undefined && entry.resourceId !== query.resourceId) continue;
        if (query.identityProvider !== undefined && entry.identityProvider !== query.identityProvider) continue;
        if (query.requestId !== undefined && entry.requestId !== query.requestId) continue;
        const time = Date.parse(entry.at);
        if ((from !== undefined && time < from) || (to !== undefined && time >= to)) continue;
        if (page.length === limit) return { entries: page, nextCursor: cursors.encode(last) };
        page.push(entryOf(slot));
        last = at;
      }
      return { entries: page };
    },

    async listUnauthenticated(query: UnauthenticatedRequestLogQuery = {}): Promise<UnauthenticatedRequestLogPage> {
      const limit = checkUnauthenticatedQuery(query);
      const before = beforeOf(query.cursor, unauthenticatedCursors);
      const counted = { dropped: sample.dropped, droppedSince: startedAt };
      const page: UnauthenticatedRequestLogEntry[] = [];
      let last = 0;
      for (const [at, entry] of unauthenticated.newestFirst(before)) {
        if (query.orgId !== undefined && entry.orgId !== query.orgId) continue;
        if (page.length === limit) return { entries: page, nextCursor: unauthenticatedCursors.encode(last), ...counted };
        page.push(entry);
        last = at;
      }
      return { entries: page, ...counted };
    },
  };
}
