import { describe, expect, it } from "vitest";
import { keyedMutex } from "./keyed-mutex.js";

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

describe("keyedMutex", () => {
  it("runs the work of one key one at a time, in call order", async () => {
    const mutex = keyedMutex();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const work = (name: string) => async (): Promise<string> => {
      running += 1;
      most = Math.max(most, running);
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      running -= 1;
      return name;
    };
    const results = await Promise.all(["a", "b", "c", "d"].map((name) => mutex.run("k", work(name))));
    expect(results).toEqual(["a", "b", "c", "d"]);
    expect(most).toBe(1);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c", "start d", "end d"]);
  });

  it("lets different keys overlap", async () => {
    const mutex = keyedMutex();
    let running = 0;
    let most = 0;
    const work = async (): Promise<void> => {
      running += 1;
      most = Math.max(most, running);
      await tick();
      running -= 1;
    };
    await Promise.all(["a", "b", "c"].map((key) => mutex.run(key, work)));
    expect(most).toBe(3);
  });

  it("passes a rejection to its caller and still runs the next work", async () => {
    const mutex = keyedMutex();
    const failing = mutex.run("k", async () => {
      await tick();
      throw new Error("boom");
    });
    const next = mutex.run("k", async () => "next");
    await expect(failing).rejects.toThrow("boom");
    await expect(next).resolves.toBe("next");
  });

  it("forgets a key once its last work settles, so it holds only keys in flight", async () => {
    const mutex = keyedMutex();
    const pending = Array.from({ length: 100 }, (_, index) => mutex.run(`key${index % 10}`, tick));
    expect(mutex.size).toBe(10);
    await Promise.all(pending);
    expect(mutex.size).toBe(0);
    await mutex.run("again", async () => expect(mutex.size).toBe(1));
    expect(mutex.size).toBe(0);
  });
});
