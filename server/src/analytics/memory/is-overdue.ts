import type { Campaign, Enrolment } from "../analytics-store.js";

/** Whether `enrolment` is not completed and its campaign was due before `asOf`. */
export function isOverdue(enrolment: Enrolment, campaign: Campaign | undefined, asOf: string): boolean {
  return enrolment.status !== "completed" && campaign?.dueAt !== undefined && Date.parse(campaign.dueAt) < Date.parse(asOf);
}
