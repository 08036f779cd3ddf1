/**
 * The report worker of one process: it claims report jobs (`claimOperation`), runs them with a
 * heartbeat, polls for jobs nobody runs — queued ones, and those whose host died, once their lease
 * ran out — and purges expired operations in the background. Several processes on one database
 * each run one; the claims keep them from running a job twice (issue 19).
 */
import { randomUUID } from "node:crypto";
import { isScimError } from "scimkit/core";
import type { AnalyticsStore, Operation } from "./analytics-store.js";
import { resolveReportOptions, type ReportOptions, type ResolvedReportOptions } from "./report-options.js";
import { runReportOperation, type ReportJobOutcome } from "./run-report-operation.js";

/** A process's report worker; the analytics router starts one and stops it in its `close()`. */
export interface ReportWorker {
  /** The id this worker claims jobs under (`ReportOptions.workerId`). */
  readonly workerId: string;
  /** The options in force, defaults applied. */
  readonly options: ResolvedReportOptions;
  /** Claims and starts `operationId` now when this process has room; otherwise a later poll finds it. */
  kick(operationId: string): void;
  /**
   * One poll: claims jobs nobody runs (queued and unclaimed, or whose owner's heartbeat is older
   * than the lease) up to the free capacity and starts them. Resolves with how many it started,
   * once they are claimed (not finished: see `idle`).
   */
  pollOnce(): Promise<number>;
  /**
   * Purges expired operations with their rows, one bounded batch per store call with a turn of
   * the event loop between batches, until none is left. Resolves with how many were deleted.
   */
  purgeOnce(): Promise<number>;
  /** Resolves when no job of this worker is running. */
  idle(): Promise<void>;
  /**
   * Stops the timers, asks running jobs to stop after their current page, waits for them and
   * gives up their claims, so another process takes them over at once. Idempotent.
   */
  close(): Promise<void>;
}

/** What a worker needs. */
export interface ReportWorkerOptions {
  readonly store: AnalyticsStore;
  readonly now: () => Date;
  readonly onError: (error: unknown) => void;
  readonly reports?: ReportOptions;
}

interface RunningJob {
  stop: boolean;
  lost: boolean;
  readonly done: Promise<ReportJobOutcome>;
}

/** Starts a worker: its poll and purge timers are `unref`'d, so they never keep a process alive. */
export function reportWorker(options: ReportWorkerOptions): ReportWorker {
  const { store, now } = options;
  // A database that cannot be reached (the store's 503) is an outage, the operator's to see in the
  // database's own logs, not an unexpected failure: the next poll, heartbeat or purge tries again.
  const onError = (error: unknown): void => {
    if (isScimError(error) && error.status === 503) return;
    options.onError(error);
  };
  const settings = resolveReportOptions(options.reports ?? {}, randomUUID);
  const { workerId } = settings;
  const running = new Map<string, RunningJob>();
  let closed = false;
  let closing: Promise<void> | undefined;
  let polling: Promise<number> | undefined;
  let purging: Promise<number> | undefined;

  const at = (offsetMs = 0): string => new Date(now().getTime() + offsetMs).toISOString();

  function run(operation: Operation): void {
    const job: { stop: boolean; lost: boolean } = { stop: false, lost: false };
    const heartbeat = setInterval(() => {
      store.heartbeatOperation(operation.id, workerId, at()).then(
        (held) => {
          if (!held) job.lost = true;
        },
        // A missed heartbeat is not fatal: if they keep failing, the lease runs out, another
        // worker takes over, and this job's next fenced write finds its claim gone.
        onError,
      );
    }, settings.heartbeatMs);
    heartbeat.unref();
    const done = runReportOperation({ store, operation, now, onError, stopping: () => job.stop || job.lost })
      .then((outcome) => {
        // Given back by the next poll (not this one, which would take it straight back), once the
        // database answers again; if it never does, the lease runs out.
        if (outcome === "interrupted") interrupted.add(operation.id);
        return outcome;
      })
      .finally(() => {
        clearInterval(heartbeat);
        running.delete(operation.id);
      });
    running.set(operation.id, Object.assign(job, { done }));
  }

  /** Claims in flight: counted with the running jobs, so a kick and a poll at once never exceed `concurrency`. */
  let claiming = 0;

  async function claim(id?: string): Promise<boolean> {
    if (closed || running.size + claiming >= settings.concurrency) return false;
    claiming += 1;
    let claimed: Operation | undefined;
    try {
      claimed = await store.claimOperation({
        ownerId: workerId,
        now: at(),
        staleBefore: at(-settings.leaseMs),
        ...(id === undefined ? {} : { id }),
      });
    } finally {
      claiming -= 1;
    }
    if (claimed === undefined) return false;
    if (closed) {
      // Claimed while closing: give it straight back.
      await store.releaseOperation(claimed.id, workerId);
      return false;
    }
    run(claimed);
    return true;
  }

  /** Jobs given up in an outage, to release at the next poll. */
  const interrupted = new Set<string>();

  async function releaseInterrupted(): Promise<void> {
    for (const id of [...interrupted]) {
      await store.releaseOperation(id, workerId);
      interrupted.delete(id);
    }
  }

  async function poll(): Promise<number> {
    await releaseInterrupted();
    // Only the room there is now: a job that ends during this poll (given up in an outage, say)
    // is not claimed again until the next one.
    const room = settings.concurrency - running.size - claiming;
    let started = 0;
    while (started < room && (await claim())) started += 1;
    return started;
  }

  async function purge(): Promise<number> {
    let total = 0;
    while (!closed) {
      const deleted = await store.purgeExpiredOperations(at(), settings.purgeBatch);
      total += deleted;
      if (deleted === 0) break;
      // Requests go first: the next batch waits for a turn of the event loop.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return total;
  }

  const worker: ReportWorker = {
    workerId,
    options: settings,
    kick(operationId) {
      claim(operationId).catch(onError);
    },
    pollOnce() {
      polling ??= poll().finally(() => {
        polling = undefined;
      });
      return polling;
    },
    purgeOnce() {
      purging ??= purge().finally(() => {
        purging = undefined;
      });
      return purging;
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running.values()].map((job) => job.done));
    },
    close() {
      closing ??= (async () => {
        closed = true;
        clearInterval(pollTimer);
        clearInterval(purgeTimer);
        const jobs = [...running.entries()];
        for (const [, job] of jobs) job.stop = true;
        await Promise.allSettled([polling, purging]);
        const outcomes = await Promise.allSettled(jobs.map(([, job]) => job.done));
        for (const [index, [id]] of jobs.entries()) {
          const outcome = outcomes[index];
          if (outcome?.status === "fulfilled" && outcome.value === "stopped") await store.releaseOperation(id, workerId).catch(onError);
        }
        await releaseInterrupted().catch(onError);
      })();
      return closing;
    },
  };

  const tick = (work: () => Promise<number>) => () => {
    work().catch(onError);
  };
  // A restarted host picks up what is queued at its first poll, and what it ran once the lease is out.
  const pollTimer = setInterval(tick(worker.pollOnce), settings.pollMs);
  const purgeTimer = setInterval(tick(worker.purgeOnce), settings.purgeMs);
  for (const timer of [pollTimer, purgeTimer]) timer.unref();
  return worker;
}
