/**
 * Learners' feedback in the memory analytics store, by subject (a campaign or a simulation).
 */
import type { FeedbackComment, FeedbackStore } from "../analytics-store.js";
import { keysetPage } from "./keyset-page.js";
import type { MemoryAnalyticsState, Owned } from "./memory-analytics-state.js";
import { plainCopy } from "./plain-copy.js";
import { sortedValues } from "./sorted-values.js";

/** The key of a subject's comments in `MemoryAnalyticsState.feedback`. */
function subjectKey(subject: FeedbackComment["subject"]): string {
  return `${subject.kind}:${subject.id}`;
}

/** The `FeedbackStore` of the memory analytics store over `state`. */
export function memoryFeedback(state: MemoryAnalyticsState): FeedbackStore {
  const { feedback } = state;
  return {
    async addFeedback(orgId, comment) {
      const key = subjectKey(comment.subject);
      let byId = feedback.get(key);
      if (byId === undefined) {
        byId = new Map();
        feedback.set(key, byId);
      }
      if (byId.has(comment.id)) throw new Error(`memoryAnalyticsStore: feedback ${comment.id} exists`);
      byId.set(comment.id, { orgId, value: plainCopy(comment) });
    },

    async listFeedback(subject, page) {
      const comments = sortedValues(feedback.get(subjectKey(subject)) ?? new Map<string, Owned<FeedbackComment>>());
      return keysetPage(
        comments,
        (owned) => owned.value.id,
        page,
        (owned) => plainCopy(owned.value),
      );
    },
  };
}
