/**
 * Lifecycle events the router delivers to the host after the store has committed, so the host
 * can act on provisioning — for example end the sessions of a deactivated learner.
 */
import type { ScimObject } from "../scim/schema/normalize-value.js";

/** What happened to a user. `activated`/`deactivated` accompany the `updated` of the same write. */
export type UserEventType = "user.created" | "user.updated" | "user.activated" | "user.deactivated" | "user.deleted";

/**
 * What happened to a group. `members.ignored` reports member ids a write named that are not
 * resources of the organization (DESIGN §4: ignored and reported by default).
 */
export type GroupEventType =
  | "group.created"
  | "group.updated"
  | "group.members.added"
  | "group.members.removed"
  | "group.members.ignored"
  | "group.deleted";

/** One committed change. Resource types other than User and Group use `resource.*` names. */
export interface ScimEvent {
  readonly type: UserEventType | GroupEventType | `resource.${"created" | "updated" | "deleted"}`;
  /** The organization the change happened in. */
  readonly orgId: string;
  /** The resource type id (`User`, `Group`, …). */
  readonly resourceType: string;
  /** The id of the user or group. */
  readonly id: string;
  /**
   * The resource as now stored (for `deleted`, as it was), rendered like a response without its
   * members, so a large group never has to be loaded for an event.
   */
  readonly resource: ScimObject;
  /** For `group.members.*`: the member ids added, removed or ignored. */
  readonly memberIds?: readonly string[];
}

/** Receives events; a rejection is reported to `onError` and never undoes or fails the request. */
export type ScimEventListener = (event: ScimEvent) => void | Promise<void>;
