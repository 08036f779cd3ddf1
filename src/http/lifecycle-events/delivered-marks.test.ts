import { describe, expect, it } from "vitest";
import type { EventOutbox, OutboxEventKey } from "../../store/event-outbox.js";
import { memoryStore } from "../../store/memory/memory-store.js";
import { deliveredMarks } from "./delivered-marks.js";

const FUTURE = "2999-01-01T00:00:00.000Z";
const input = (jti: string) => ({ jti, type: "user.created", resourceType: "User", resourceId: jti, resource: { id: jti } });

/** The store's outbox, counting the calls to `markDelivered` and failing them while `failing` is set. */
function countingOutbox(): { outbox: EventOutbox; calls: OutboxEventKey[][]; failing: { on: boolean } } {
  const store = memoryStore();
  const inner = store.events;
  if (!inner) throw new Error("the memory store has no outbox");
  const calls: OutboxEventKey[][] = [];
  const failing = { on: false };
  return {
    calls,
    failing,
    outbox: {
      ...inner,
      async markDelivered(events) {
        calls.push([...events]);
        if (failing.on) throw new Error("database unavailable");
        await inner.markDelivered(events);
      },
    },
  };
}

describe("deliveredMarks", () => {
  it("marks the deliveries of one turn in one call, and those noted while it runs in the next", async () => {
    const { outbox, calls } = countingOutbox();
    const recorded = await outbox.append("acme", [input("a"), input("b"), input("c")], { pending: true, leaseUntil: FUTURE });
    const marks = deliveredMarks(outbox, (error) => {
      throw error;
    });
    marks.note(recorded.slice(0, 1));
    marks.note(recorded.slice(1, 2));
    await marks.flush();
    expect(calls.map((call) => call.map((event) => event.sequence))).toEqual([[1, 2]]);
    marks.note(recorded.slice(2));
    await marks.flush();
    expect(calls).toHaveLength(2);
    // Nothing left pending: no process would claim them after their lease.
    expect(await outbox.claimPending({ limit: 10, now: "3000-01-01T00:00:00.000Z", leaseUntil: "3001-01-01T00:00:00.000Z" })).toEqual([]);
  });

  it("reports a failed mark and leaves those events pending, to be delivered again after their lease", async () => {
    const { outbox, failing } = countingOutbox();
    const recorded = await outbox.append("acme", [input("a")], { pending: true, leaseUntil: FUTURE });
    const errors: unknown[] = [];
    const marks = deliveredMarks(outbox, (error) => errors.push(error));
    failing.on = true;
    marks.note(recorded);
    await marks.flush();
    expect(errors).toHaveLength(1);
    const again = await outbox.claimPending({ limit: 10, now: "3000-01-01T00:00:00.000Z", leaseUntil: "3001-01-01T00:00:00.000Z" });
    expect(again.map((event) => event.jti)).toEqual(["a"]);
  });
});
