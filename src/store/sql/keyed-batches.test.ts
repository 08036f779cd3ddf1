/**
 * `keyedBatches`: nothing waits on an idle key; what arrives while a key's batch runs goes together
 * in the next one, in arrival order and within the bounds; keys never wait for each other; each
 * item settles as its batch says.
 */
import { describe, expect, it } from "vitest";
import { keyedBatches, type Settled } from "./keyed-batches.js";

/** A run that records its batches and finishes each when `release` is called. */
function controlledRun() {
  const batches: string[][] = [];
  const releases: (() => void)[] = [];
  const run = (items: readonly string[]): Promise<readonly Settled<string>[]> => {
    batches.push([...items]);
    return new Promise((resolve) => {
      releases.push(() =>
        resolve(
          items.map((item) => (item.startsWith("bad") ? { ok: false, error: new Error(item) } : { ok: true, value: `done ${item}` })),
        ),
      );
    });
  };
  return { batches, releases, run };
}

const bounds = { maxItems: 3, maxWeight: 10, weight: (item: string) => Number(item.split(":")[1] ?? 1) };

describe("keyedBatches", () => {
  it("runs an item of an idle key at once, and batches what arrives while it runs, in order", async () => {
    const { batches, releases, run } = controlledRun();
    const batcher = keyedBatches(run, bounds);
    const first = batcher.submit("g", "a");
    expect(batches).toEqual([["a"]]);
    const rest = ["b", "c", "d", "e"].map((item) => batcher.submit("g", item));
    expect(batches).toHaveLength(1);
    releases[0]?.();
    await expect(first).resolves.toBe("done a");
    await Promise.resolve();
    // At most three items a batch: b, c, d now, e after them.
    expect(batches).toEqual([["a"], ["b", "c", "d"]]);
    releases[1]?.();
    await expect(Promise.all(rest.slice(0, 3))).resolves.toEqual(["done b", "done c", "done d"]);
    expect(batches).toEqual([["a"], ["b", "c", "d"], ["e"]]);
    releases[2]?.();
    await expect(rest[3]).resolves.toBe("done e");
    expect(batcher.size).toBe(0);
  });

  it("keeps a batch within its weight, and gives an item heavier than the bound a batch of its own", async () => {
    const { batches, releases, run } = controlledRun();
    const batcher = keyedBatches(run, bounds);
    const all = [batcher.submit("g", "x:1"), batcher.submit("g", "y:6"), batcher.submit("g", "z:5"), batcher.submit("g", "w:12")];
    for (let index = 0; index < 4; index++) {
      releases[index]?.();
      await all[index];
    }
    expect(batches).toEqual([["x:1"], ["y:6"], ["z:5"], ["w:12"]]);
  });

  it("never makes one key wait for another", () => {
    const { batches, run } = controlledRun();
    const batcher = keyedBatches(run, bounds);
    void batcher.submit("org-a/g", "a1");
    void batcher.submit("org-b/g", "b1");
    void batcher.submit("org-a/g", "a2");
    expect(batches).toEqual([["a1"], ["b1"]]);
    expect(batcher.size).toBe(2);
  });

  it("settles each item as the run says, and a run that throws fails its whole batch only", async () => {
    const { releases, run } = controlledRun();
    const batcher = keyedBatches(run, bounds);
    const first = batcher.submit("g", "a");
    const good = batcher.submit("g", "b");
    const bad = batcher.submit("g", "bad-c");
    releases[0]?.();
    await first;
    await Promise.resolve();
    releases[1]?.();
    await expect(good).resolves.toBe("done b");
    await expect(bad).rejects.toThrow("bad-c");

    let calls = 0;
    const throwing = keyedBatches<string, string>(async (items) => {
      calls += 1;
      if (calls === 1) throw new Error("the database went away");
      return items.map((item) => ({ ok: true, value: item }));
    }, bounds);
    await expect(throwing.submit("g", "lost")).rejects.toThrow("the database went away");
    await expect(throwing.submit("g", "next")).resolves.toBe("next");
    expect(throwing.size).toBe(0);
  });
});
