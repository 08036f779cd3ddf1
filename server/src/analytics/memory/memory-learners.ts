/**
 * The learner list of the memory analytics store: the organizations in scope in id order, each
 * one's SCIM users walked a chunk at a time until the page is full.
 */
import type { Learner, LearnerFilter, LearnerStore } from "../analytics-store.js";
import { compareKeys } from "./keyset-page.js";
import { learnerOf } from "./learner-of.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";
import { sees } from "./memory-scope.js";
import { walkResources } from "./walk-resources.js";

function matchesLearner(learner: Learner, filter: LearnerFilter): boolean {
  if (filter.active !== undefined && learner.active !== filter.active) return false;
  if (filter.department !== undefined && learner.department?.toLowerCase() !== filter.department.toLowerCase()) return false;
  return true;
}

/** `"<orgId>\n<id>"`, the position `listLearners` pages by. */
function learnerPosition(learner: Learner): string {
  return `${learner.orgId}\n${learner.id}`;
}

/** The `LearnerStore` of the memory analytics store over `state`. */
export function memoryLearners(state: MemoryAnalyticsState): LearnerStore {
  return {
    async listLearners(scope, filter, page) {
      const orgIds = [...state.organizations.keys()]
        .filter((orgId) => sees(scope, orgId) && (filter.orgId === undefined || orgId === filter.orgId))
        .sort(compareKeys);
      const separator = page.after?.indexOf("\n") ?? -1;
      const afterOrg = page.after === undefined ? undefined : separator < 0 ? page.after : page.after.slice(0, separator);
      const afterId = page.after === undefined || separator < 0 ? undefined : page.after.slice(separator + 1);
      // One learner past the limit tells whether a next page exists.
      const found: Learner[] = [];
      walk: for (const orgId of orgIds) {
        if (afterOrg !== undefined && compareKeys(orgId, afterOrg) < 0) continue;
        for await (const user of walkResources(state.resources, orgId, "User", orgId === afterOrg ? afterId : undefined, false)) {
          const candidate = learnerOf(orgId, user);
          if (!matchesLearner(candidate, filter)) continue;
          found.push(candidate);
          if (found.length > page.limit) break walk;
        }
      }
      const items = found.slice(0, page.limit);
      const last = items[items.length - 1];
      return found.length > page.limit && last !== undefined ? { items, next: learnerPosition(last) } : { items };
    },
  };
}
