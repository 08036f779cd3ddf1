/**
 * Waiting for a target to become idle between measurements, so one phase's stragglers don't run
 * into the next (a client that hung up does not stop a running database query).
 */
import { readMetrics } from "./control-client.js";
import type { MetricsResponse } from "./target-protocol.js";
import type { RunningTarget } from "./target-process.js";

/** The target did not become idle within the timeout after a phase. */
export class TargetBusy extends Error {}

/** Reads metrics, or throws `TargetBusy` when the target does not answer within the timeout. */
async function readMetricsOrBusy(target: RunningTarget, timeoutSec: number): Promise<MetricsResponse> {
  try {
    return await readMetrics(target, false, timeoutSec * 1000);
  } catch (error) {
    throw new TargetBusy(`no metrics answer: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Waits until the target has no SCIM request in flight (when it reports `inFlight`); returns the
 * first reading (RSS right after the phase) with the largest event-loop delay seen while waiting.
 * Reading the metrics resets the target's event-loop histogram, so this also starts a new one.
 */
export async function drainTarget(target: RunningTarget, timeoutSec: number): Promise<MetricsResponse> {
  const deadline = performance.now() + timeoutSec * 1000;
  const first = await readMetricsOrBusy(target, timeoutSec);
  let latest = first;
  let maxEventLoopDelayMs = first.maxEventLoopDelayMs;
  if (first.inFlight !== undefined) {
    while ((latest.inFlight ?? 0) > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      latest = await readMetricsOrBusy(target, timeoutSec);
      maxEventLoopDelayMs = Math.max(maxEventLoopDelayMs, latest.maxEventLoopDelayMs);
    }
    if ((latest.inFlight ?? 0) > 0) throw new TargetBusy(`${latest.inFlight} requests still in flight`);
  } else {
    // No in-flight count: wait until the event loop has been quiet (< 50 ms delay) for two
    // 250 ms readings in a row, i.e. the stragglers of an in-memory target have finished.
    let quiet = first.maxEventLoopDelayMs < 50 ? 1 : 0;
    while (quiet < 2 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      latest = await readMetricsOrBusy(target, timeoutSec);
      maxEventLoopDelayMs = Math.max(maxEventLoopDelayMs, latest.maxEventLoopDelayMs);
      quiet = latest.maxEventLoopDelayMs < 50 ? quiet + 1 : 0;
    }
    if (quiet < 2) throw new TargetBusy("its event loop stayed busy");
  }
  return { ...first, maxEventLoopDelayMs };
}
