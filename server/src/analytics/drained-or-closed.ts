/**
 * Back-pressure for a report written in pieces: once `write` has returned false, wait until the
 * socket drains — or the client leaves, which ends the wait too, so a writer never hangs on a
 * connection that is gone.
 */
import type { Writable } from "node:stream";

/** Resolves on `drain` or `close`, whichever comes first, leaving no listener behind. */
export function drainedOrClosed(sink: Writable): Promise<void> {
  return new Promise((resolve) => {
    const settle = (): void => {
      sink.removeListener("drain", settle);
      sink.removeListener("close", settle);
      resolve();
    };
    sink.once("drain", settle);
    sink.once("close", settle);
  });
}
