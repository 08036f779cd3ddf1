/**
 * Back-pressure for a response written in pieces (a report download, a group of 100,000 members):
 * once `write` has returned false, wait until the socket drains — or the client leaves, which ends
 * the wait too, so a writer never hangs on a connection that is gone.
 */

/** What waiting needs of a stream: an `http.ServerResponse` is one, so is any `Writable`. */
export interface DrainableSink {
  once(event: "drain" | "close", listener: () => void): unknown;
  removeListener(event: "drain" | "close", listener: () => void): unknown;
}

/** Resolves on `drain` or `close`, whichever comes first, leaving no listener behind. */
export function drainedOrClosed(sink: DrainableSink): Promise<void> {
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
