/**
 * How many test files run at once, for both packages' vitest configs.
 */
import { availableParallelism } from "node:os";

/**
 * One test file per core, and never fewer than two. Vitest's own default (cores − 1) is one on a
 * 2-core CI machine: one file at a time, a core idle whenever that file waits on what it started
 * — a host or CLI process, PostgreSQL, a socket — which the process tests, the slowest, mostly do.
 * Every file may run beside any other: each opens its own stores, schemas, ports and directories.
 */
export function testWorkers(): number {
  return Math.max(2, availableParallelism());
}
