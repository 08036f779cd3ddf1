/**
 * `treeSummary` of the memory analytics store (issue 17, item 4): the figures of an organization
 * and its descendants, one pass over each kind of record, with turns of the event loop between.
 */
import { pauseIfDue } from "scimkit/store";
import type { OrgScope, TreeSummary } from "../analytics-store.js";
import { isOverdue } from "./is-overdue.js";
import { learnerOf, workEmailOf } from "./learner-of.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";
import { subtreeOf } from "./memory-organization-tree.js";
import { sees } from "./memory-scope.js";
import { walkResources } from "./walk-resources.js";

/** The figures of `orgId` and its descendants within `scope`; undefined when `orgId` is not in scope. */
export async function memoryTreeSummary(
  state: MemoryAnalyticsState,
  scope: OrgScope,
  orgId: string,
  options: { readonly asOf: string; readonly people?: boolean },
): Promise<TreeSummary | undefined> {
  const { organizations, enrolments, recipients, campaigns } = state;
  if (!organizations.has(orgId) || !sees(scope, orgId)) return undefined;
  const slice = state.newSlice();
  const members = subtreeOf(state, orgId)
    .map((member) => member.id)
    .filter((id) => sees(scope, id));
  const figuresOf = new Map(
    members.map((id) => [
      id,
      { orgId: id, learners: 0, activeLearners: 0, enrolled: 0, completed: 0, overdue: 0, sent: 0, clicked: 0, reported: 0 },
    ]),
  );
  const people = new Set<string>();
  const activePeople = new Set<string>();
  for (const figures of figuresOf.values()) {
    const id = figures.orgId;
    for await (const user of walkResources(state.resources, id, "User", undefined, false)) {
      const person = workEmailOf(user) ?? `id:${id}/${user.id}`;
      const active = learnerOf(id, user).active;
      figures.learners += 1;
      people.add(person);
      if (active) {
        figures.activeLearners += 1;
        activePeople.add(person);
      }
      await pauseIfDue(slice);
    }
  }
  // One pass over each table, each row counted for its organization when that is a member:
  // not a pass per member, which a subtree of thousands made thousands of passes.
  for (const byUser of enrolments.values()) {
    for (const { orgId: owner, value } of byUser.values()) {
      const figures = figuresOf.get(owner);
      if (figures === undefined) continue;
      figures.enrolled += 1;
      if (value.status === "completed") figures.completed += 1;
      if (isOverdue(value, campaigns.get(value.campaignId), options.asOf)) figures.overdue += 1;
    }
    await pauseIfDue(slice);
  }
  for (const byUser of recipients.values()) {
    for (const { orgId: owner, value } of byUser.values()) {
      const figures = figuresOf.get(owner);
      if (figures === undefined) continue;
      if (value.sentAt !== undefined) figures.sent += 1;
      if (value.clickedAt !== undefined) figures.clicked += 1;
      if (value.reportedAt !== undefined) figures.reported += 1;
    }
    await pauseIfDue(slice);
  }
  const rows = [...figuresOf.values()];
  const totals = { learners: 0, activeLearners: 0, enrolled: 0, completed: 0, overdue: 0, sent: 0, clicked: 0, reported: 0 };
  for (const { orgId: _orgId, ...figures } of rows) {
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += figures[key];
  }
  const summary = { orgId, organizations: rows, totals, asOf: options.asOf };
  return options.people === true ? { ...summary, people: { learners: people.size, activeLearners: activePeople.size } } : summary;
}
