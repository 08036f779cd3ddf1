/**
 * `clientGoneSignal`: an `AbortSignal` that aborts when the client of a request disconnects before
 * its response was sent, so work still waiting for its turn is dropped instead of run for nobody.
 */
import type { Response } from "express";
import { scimError } from "../../errors.js";

/**
 * The signal of `response`'s client. The reason is a `ScimError`, so a request that gave up on
 * it is answered (to no one) as an expected outcome and not reported to `onError` as a failure.
 */
export function clientGoneSignal(response: Response): AbortSignal {
  const controller = new AbortController();
  const gone = (): void => {
    controller.abort(scimError("unavailable", "The client disconnected while the request waited for its turn; it was not run."));
  };
  // `close` also follows a complete response; only a close before the end means the client left.
  if (response.destroyed && !response.writableFinished) {
    gone();
  } else {
    response.once("close", () => {
      if (!response.writableFinished) gone();
    });
  }
  return controller.signal;
}
