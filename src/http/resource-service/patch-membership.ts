/**
 * A PATCH that only adds and removes members of a group (issue 29): identity providers send one per
 * member, many at once to one group. Membership deltas commute and need no version (architecture
 * §3, §4b: the store applies them without reading the other members, and concurrent ones all take
 * effect), so such a PATCH is written without the resource's lock and without reading it first:
 * one `store.update`, and concurrent removals from one group no longer queue behind each other's
 * read. Whatever else a PATCH may be, and a client's `If-Match`, goes the read-modify-write way
 * (`updateResource`).
 */
import { driveInSlices } from "../../event-loop-slice.js";
import { isPossibleId } from "../../is-possible-id.js";
import { type MembershipPatchOptions, membershipPatchStepwise } from "../../scim/patch/membership-patch.js";
import type { PatchOperation } from "../../scim/patch/patch-request.js";
import type { WriteResult } from "../../store/resource-store.js";
import { outcomeOf } from "./read-resource.js";
import { resourceEvents } from "./resource-events.js";
import type { ResourceOutcome, ServiceContext } from "./resource-service.js";
import type { ResourceServiceState } from "./resource-service-state.js";
import type { TypeHandler } from "./type-handler.js";
import { writeUpdate } from "./update-resource.js";

/**
 * Writes the membership delta of a PATCH whose every operation adds or removes members by id
 * (`membershipPatchStepwise`) and answers as `updateResource` would: the 404 of a group the store
 * does not have, the `members.*` events of what the store did (the attributes are untouched, so no
 * `updated`), the resource as stored. `undefined`, having written nothing, for a request it does
 * not take — another operation, a bound or value the engine refuses, a delta that changes nothing —
 * so that the caller runs the engine, which answers those exactly as before.
 */
export async function patchMembership(
  state: ResourceServiceState,
  context: ServiceContext,
  type: TypeHandler,
  id: string,
  operations: readonly PatchOperation[],
  options: MembershipPatchOptions,
  members: boolean,
): Promise<ResourceOutcome | undefined> {
  // An id no store holds is the read's 404 (`readResource`), kept from every store call.
  if (!isPossibleId(id)) return undefined;
  const membership = await driveInSlices(membershipPatchStepwise(type.schema, operations, options));
  if (membership === undefined) return undefined;
  const eventsOf = resourceEvents(state.registry, type, context).updated;
  // No `expectedVersion`: a delta is right at whatever version it lands on.
  const written = await writeUpdate(state, context, type, id, members, { membership }, (result: WriteResult) =>
    // Unchanged attributes: `updated` reads no `before`, and reports the members alone.
    eventsOf(result.resource.attributes, result.resource, false, result.membership),
  );
  await written.deliver();
  return outcomeOf(state, context, type, written.stored);
}
