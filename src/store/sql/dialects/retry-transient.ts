/**
 * Retrying a transaction that the database aborted for reasons of timing alone (a deadlock, a
 * serialization failure): the store's lock order avoids them, and this keeps a rare one from
 * becoming a 500.
 */

/** Attempts of a transaction before its transient failure is thrown. */
const ATTEMPTS = 5;

/**
 * Runs `attempt` until it succeeds, retrying (after a short random pause, so the contenders part)
 * while `isTransient` says the failure was only timing, at most five times in all.
 *
 * @example retryTransient(() => db.transaction().execute(work), (error) => codeOf(error) === "40P01")
 */
export async function retryTransient<T>(attempt: () => Promise<T>, isTransient: (error: unknown) => boolean): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= ATTEMPTS || !isTransient(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * tries));
    }
  }
}
