/**
 * The router's side of the fair share (architecture §4b): classify a request, and when it is expensive,
 * wait for a permit of its organization before the store is asked.
 */
import type { Response } from "express";
import { scimContext } from "../request-context/scim-request-context.js";
import { turnSignal } from "./turn-signal.js";
import type { ExpensiveWorkGate, WorkPermit } from "./expensive-work-gate.js";
import type { ScimWork, WorkClassifier } from "./work-classifier.js";

/** The gate, the classifier and the longest wait a router was configured with. */
export interface FairShare {
  readonly gate: ExpensiveWorkGate;
  readonly classifier: WorkClassifier;
  /** How long a request waits for its turn before it is answered 429 (`FairShareOptions.maxWaitMs`). */
  readonly maxWaitMs: number;
}

/**
 * Resolves with the permit `work` needs, to release once it is done, or with `undefined` for
 * cheap work, which never waits, and for work of a request that already holds a permit. Rejects
 * with the gate's refusal (429, 503), with a 429 once it has waited `maxWaitMs`, or, when the
 * client leaves while the work waits, with the reason of `clientGoneSignal`.
 */
export type WorkAdmission = (work: ScimWork, response: Response) => Promise<WorkPermit | undefined>;

const admitEverything: WorkAdmission = async () => undefined;

/** The admission of a router; with no fair share, every request runs at once. */
export function workAdmission(fairShare: FairShare | undefined): WorkAdmission {
  if (fairShare === undefined) return admitEverything;
  const { gate, classifier, maxWaitMs } = fairShare;
  return async (work, response) => {
    const context = scimContext(response);
    // The request took its turn on its headers (`admitLargeBody`); that permit covers this work
    // and is released when the response ends.
    if (context.permit !== undefined) return undefined;
    if (!classifier.isExpensive(work)) return undefined;
    const orgId = work.kind === "list" ? work.request.orgId : work.orgId;
    const wait = turnSignal(response, maxWaitMs);
    try {
      return await gate.acquire(orgId, wait.signal, context.fairShareGroup ?? orgId);
    } finally {
      wait.done();
    }
  };
}

/** Runs `task` under a permit of `admission`, releasing it however the task ends. */
export async function withAdmission<T>(admission: WorkAdmission, work: ScimWork, response: Response, task: () => Promise<T>): Promise<T> {
  const permit = await admission(work, response);
  try {
    return await task();
  } finally {
    permit?.release();
  }
}
