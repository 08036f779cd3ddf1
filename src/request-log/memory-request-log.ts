/**
 * `memoryRequestLog`: the provisioning log in process memory, for tests, development and hosts on
 * the memory store. A ring buffer: the newest `capacity` entries of every organization together,
 * so memory stays bounded however many organizations (or unauthenticated paths naming one) write.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { checkRequestLogQuery, type CheckedRequestLogQuery } from "./check-request-log-query.js";
import type { ReadableRequestLog, RequestLogPage, RequestLogQuery } from "./readable-request-log.js";
import type { RequestLogEntry } from "./request-log.js";

/** Options of `memoryRequestLog`. */
export interface MemoryRequestLogOptions {
  /**
   * Entries kept, all organizations together; the oldest go first. Default 10,000. With bodies of
   * up to `maxBodyBytes` each, size it to the memory it may take (10,000 × 2 × 64 KiB at worst).
   */
  readonly capacity?: number;
  /** `RequestLog.maxBodyBytes`: the most of each body an entry keeps. Default 65,536. */
  readonly maxBodyBytes?: number;
}

interface Slot {
  readonly sequence: number;
  readonly entry: RequestLogEntry;
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

/** The checked query, and the sequence number its cursor stands for (∞ without one). */
function checkedQuery(query: RequestLogQuery, cursors: CursorCodec): CheckedRequestLogQuery & { readonly before: number } {
  const checked = checkRequestLogQuery(query);
  let before = Number.POSITIVE_INFINITY;
  if (query.cursor !== undefined) {
    // The cursor is the sequence number of the previous page's last entry: it stays valid after
    // that entry leaves the ring (the page then simply continues with what is left).
    const at = cursors.decode(query.cursor);
    if (at === undefined) throw new RangeError(`request log: cursor ${JSON.stringify(query.cursor)} is not one this log gave.`);
    before = at;
  }
  return { ...checked, before };
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
  const capacity = options.capacity ?? 10_000;
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new Error(`memoryRequestLog: capacity must be a positive integer; got ${String(capacity)}.`);
  const ring: (Slot | undefined)[] = new Array<Slot | undefined>(capacity);
  let sequence = 0;
  const cursors = cursorCodec();

  return {
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),

    record(entry) {
      sequence += 1;
      ring[sequence % capacity] = { sequence, entry: Object.isFrozen(entry) ? entry : Object.freeze({ ...entry }) };
    },

    async list(orgId, query = {}): Promise<RequestLogPage> {
      const { limit, before, from, to } = checkedQuery(query, cursors);
      const entries: RequestLogEntry[] = [];
      let last = 0;
      const oldest = Math.max(1, sequence - capacity + 1);
      for (let at = Math.min(sequence, before - 1); at >= oldest; at--) {
        const slot = ring[at % capacity];
        if (slot === undefined || slot.sequence !== at) continue;
        const entry = slot.entry;
        if (entry.orgId !== orgId) continue;
        if (query.statusClass !== undefined && Math.floor(entry.status / 100) !== query.statusClass) continue;
        if (query.resourceId !== undefined && entry.resourceId !== query.resourceId) continue;
        if (query.identityProvider !== undefined && entry.identityProvider !== query.identityProvider) continue;
        if (query.requestId !== undefined && entry.requestId !== query.requestId) continue;
        const time = Date.parse(entry.at);
        if ((from !== undefined && time < from) || (to !== undefined && time >= to)) continue;
        if (entries.length === limit) return { entries, nextCursor: cursors.encode(last) };
        entries.push(entry);
        last = at;
      }
      return { entries };
    },
  };
}
