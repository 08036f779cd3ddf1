import { EventEmitter } from "node:events";
import { Writable } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { EventLoopSlice } from "../../event-loop-slice.js";
import { writeJsonInPieces, type JsonSink } from "./write-json-in-pieces.js";

const group = (count: number): Record<string, unknown> => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
  id: "g",
  members: Array.from({ length: count }, (_, index) => ({ value: `u-${index}`, type: "User", $ref: `https://x.io/Users/u-${index}` })),
  meta: { resourceType: "Group" },
});

interface FakeSink extends JsonSink {
  readonly writes: string[];
  ended: string | undefined;
  destroyed: boolean;
  emit(event: "drain" | "close"): void;
}

/** A sink whose `write` answers `flowing(index)` for its index-th write. */
function fakeSink(flowing: (index: number) => boolean = () => true): FakeSink {
  const events = new EventEmitter();
  const sink: FakeSink = {
    writes: [],
    ended: undefined,
    destroyed: false,
    write(chunk) {
      sink.writes.push(chunk);
      return flowing(sink.writes.length - 1);
    },
    end(chunk) {
      sink.ended = chunk;
    },
    once(event, listener) {
      events.once(event, listener);
    },
    removeListener(event, listener) {
      events.removeListener(event, listener);
    },
    emit(event) {
      events.emit(event);
    },
  };
  return sink;
}

/** A slice that is always spent, counting the turns it gives. */
function countingSlice(): EventLoopSlice & { turns: number } {
  const slice = { turns: 0, due: () => true, next: async () => void (slice.turns += 1) };
  return slice;
}

describe("writeJsonInPieces", () => {
  it("writes JSON.stringify's text in several writes and ends, taking a turn between writes", async () => {
    const value = group(20_000);
    const sink = fakeSink();
    const slice = countingSlice();
    expect(await writeJsonInPieces(sink, value, slice)).toBe(true);
    expect(sink.writes.length).toBeGreaterThan(5);
    expect(sink.writes.join("") + sink.ended).toBe(JSON.stringify(value));
    expect(slice.turns).toBe(sink.writes.length);
  });

  it("writes a small body in one end", async () => {
    const sink = fakeSink();
    expect(await writeJsonInPieces(sink, { id: "u" })).toBe(true);
    expect(sink.writes).toEqual([]);
    expect(sink.ended).toBe('{"id":"u"}');
  });

  it("waits for drain when the sink's buffer is full, then goes on", async () => {
    const value = group(20_000);
    const sink = fakeSink((index) => index !== 0);
    const writing = writeJsonInPieces(sink, value);
    for (let turn = 0; turn < 20; turn++) await nextTurn();
    expect(sink.writes.length).toBe(1);
    sink.emit("drain");
    expect(await writing).toBe(true);
    expect(sink.writes.length).toBeGreaterThan(1);
    expect(sink.writes.join("") + sink.ended).toBe(JSON.stringify(value));
  });

  it("stops when the client goes while it waits for drain: nothing more is written, nothing ended", async () => {
    const sink = fakeSink(() => false);
    const writing = writeJsonInPieces(sink, group(20_000));
    await nextTurn();
    sink.destroyed = true;
    sink.emit("close");
    expect(await writing).toBe(false);
    expect(sink.writes.length).toBe(1);
    expect(sink.ended).toBeUndefined();
  });

  it("stops when the client goes between two writes", async () => {
    const sink = fakeSink();
    const slice: EventLoopSlice = {
      due: () => true,
      next: async () => {
        sink.destroyed = true;
      },
    };
    expect(await writeJsonInPieces(sink, group(20_000), slice)).toBe(false);
    expect(sink.writes.length).toBe(1);
    expect(sink.ended).toBeUndefined();
  });

  it("writes through a real Writable that reads slowly, the same bytes", async () => {
    const value = group(20_000);
    const received: Buffer[] = [];
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        received.push(chunk);
        setImmediate(callback);
      },
    });
    const finished = new Promise((resolve) => slow.on("finish", resolve));
    expect(await writeJsonInPieces(slow, value)).toBe(true);
    await finished;
    expect(Buffer.concat(received).toString("utf8")).toBe(JSON.stringify(value));
  });
});
