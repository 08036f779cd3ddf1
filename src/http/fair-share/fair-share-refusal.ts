import { scimError, type ScimError } from "../../errors.js";
import { type FairShareState, groupLane, orgLane } from "./fair-share-lanes.js";

/** `Retry-After` bounds: a whole second at least (RFC 9110 §10.2.3), a minute at most. */
const MIN_RETRY_SECONDS = 1;
const MAX_RETRY_SECONDS = 60;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The 429 of a request of `orgId` whose organization's queue is full, with when to retry. */
export function fairShareRefusal(state: FairShareState, orgId: string, group: string): ScimError {
  const org = orgLane(state, orgId);
  const lane = groupLane(state, group);
  // Everyone ahead must finish first: the queue drains `concurrency` requests per average hold
  // and the rest that follows it, after the rest already under way.
  const rest = Math.max(0, lane.restUntil - state.now());
  const estimate = (rest + ((state.averageMs ?? 1000) * (1 + state.restPerHeld) * (org.waiting + 1)) / state.concurrency) / 1000;
  const seconds = Math.min(MAX_RETRY_SECONDS, Math.max(MIN_RETRY_SECONDS, Math.ceil(estimate)));
  return scimError(
    "tooManyRequests",
    `This organization already has ${plural(org.running, "expensive request")} running and ${org.waiting} waiting, ` +
      `the most this service admits (lists that filter without an index or sort, deep startIndex or large count pages, /Bulk, large bodies). ` +
      `Retry after ${plural(seconds, "second")}, send such requests one at a time, or page with a cursor; ` +
      `lookups by id, userName or externalId never wait. An operator can raise the limit with the router's fairShare option.`,
    { retryAfter: seconds },
  );
}
