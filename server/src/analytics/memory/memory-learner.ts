import type { Learner } from "../analytics-store.js";
import { learnerOf } from "./learner-of.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";

/** The learner `userId` of `orgId`, read from its SCIM user; undefined once the user is gone. */
export async function memoryLearner(state: MemoryAnalyticsState, orgId: string, userId: string): Promise<Learner | undefined> {
  const user = await state.resources.get({ orgId, resourceType: "User", id: userId, members: false });
  return user === undefined ? undefined : learnerOf(orgId, user);
}
