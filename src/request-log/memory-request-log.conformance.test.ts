import { describeRequestLogConformance } from "../testkit/request-log/describe-request-log-conformance.js";
import { memoryRequestLog } from "./memory-request-log.js";

describeRequestLogConformance(
  "memoryRequestLog",
  (settings) => ({
    log: memoryRequestLog({
      capacity: 1000,
      unauthenticatedCapacity: settings.unauthenticatedCapacity,
      unauthenticatedPerMinute: settings.unauthenticatedPerMinute,
      now: settings.now,
    }),
    close: async () => {},
  }),
  {
    skip: {
      "deletes entries older than maxAgeMs by the log's clock, in every organization":
        "a ring of `capacity` entries of every organization together: no retention by age",
      "keeps each organization's newest maxEntriesPerOrg entries, sweep after sweep":
        "a ring of `capacity` entries of every organization together: no count per organization",
      "drops and counts the entries recorded past bufferCapacity, and keeps the others":
        "no buffer: record() keeps the entry at once, overwriting the oldest",
      "writes every entry it accepted when it is closed": "nothing outlives the process: no close, nothing to reopen",
    },
  },
);
