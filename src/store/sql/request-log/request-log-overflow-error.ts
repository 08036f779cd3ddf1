/**
 * What `sqlRequestLog` hands its `onError` when it dropped entries: the log never slows a request
 * down to wait for its database, so when the database falls behind (or is down) long enough to
 * fill the buffer, new entries are not kept, and the operator is told how many.
 */

/** Entries the provisioning log dropped because its buffer was full (or it was closed). */
export class RequestLogOverflowError extends Error {
  /** Entries dropped since the previous report. */
  readonly dropped: number;
  /** Entries dropped since the log was opened. */
  readonly droppedTotal: number;

  constructor(dropped: number, droppedTotal: number) {
    super(
      `sqlRequestLog: dropped ${dropped} provisioning-log ${dropped === 1 ? "entry" : "entries"} (${droppedTotal} since start): ` +
        "the buffer was full because the database took the entries more slowly than requests arrived, or could not be reached. " +
        "Check the database, or raise bufferCapacity / maxBufferedBytes.",
    );
    this.name = "RequestLogOverflowError";
    this.dropped = dropped;
    this.droppedTotal = droppedTotal;
  }
}
