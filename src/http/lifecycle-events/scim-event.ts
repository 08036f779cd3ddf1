/**
 * Lifecycle events the router delivers to the host after the store has committed, so the host
 * can act on provisioning — for example end the sessions of a deactivated learner.
 */
import type { ScimObject } from "../../scim/schema/normalize-value.js";

/** What happened to a resource of any type. */
export type ResourceEventAction = "created" | "updated" | "deleted";

/**
 * A resource with a boolean `active` (User, RFC 7643 §4.1.1) changed it: accompanies the
 * `updated` of the same write.
 */
export type ActivationEventAction = "activated" | "deactivated";

/**
 * The members of a type with members (`ResourceTypeDefinition.hasMembers`, as Group) changed.
 * `members.ignored` reports member ids a write named that are not resources of the organization
 * (architecture §4: ignored and reported by default).
 */
export type MembershipEventAction = "members.added" | "members.removed" | "members.ignored";

/**
 * A `POST` named a user who already existed and `existingUsers` is `"link"`: the existing user was
 * updated with the POSTed representation instead of a new one being created. Stands in for
 * `updated` (and `created`) of that write; `activated`/`deactivated` accompany it as they would.
 */
export type LinkEventAction = "linked";

/** Every action an event can report. */
export type ScimEventAction = ResourceEventAction | ActivationEventAction | MembershipEventAction | LinkEventAction;

/**
 * The event names of the resource type `Id`: its id with the first letter lower-cased, a dot, the
 * action. A host that registers a `Team` type narrows its events with `ResourceEventType<"Team">`
 * (`"team.created" | "team.members.added" | …`).
 */
export type ResourceEventType<Id extends string> = `${Uncapitalize<Id>}.${ScimEventAction}`;

/**
 * What happened to a user. `activated`/`deactivated` accompany the `updated` (or `linked`) of the
 * same write.
 */
export type UserEventType = `user.${ResourceEventAction | ActivationEventAction | LinkEventAction}`;

/** What happened to a group: the resource's own changes and its members'. */
export type GroupEventType = `group.${ResourceEventAction | MembershipEventAction}`;

/**
 * One committed change. Its `type` is named after the resource type (`ResourceEventType`): `user.*`
 * and `group.*` for the built-in types, `team.*` for a registered `Team`.
 */
export interface ScimEvent {
  readonly type: UserEventType | GroupEventType | `${string}.${ScimEventAction}`;
  /** The organization the change happened in. */
  readonly orgId: string;
  /** The resource type id (`User`, `Group`, …). */
  readonly resourceType: string;
  /** The id of the resource. */
  readonly id: string;
  /**
   * The resource as now stored (for `deleted`, as it was), rendered like a response without its
   * members, so a large group never has to be loaded for an event.
   */
  readonly resource: ScimObject;
  /** For `*.members.*`: the member ids added, removed or ignored. */
  readonly memberIds?: readonly string[];
  /**
   * Unique id of the event (a UUID v7): the `jti` of the Security Event Token that reports it
   * (RFC 8417 §2.2), and what tells a redelivery after a crash from a new event.
   */
  readonly jti: string;
  /**
   * The event's place among its organization's events — 1, 2, 3, … without gaps, in commit order —
   * when the store keeps an event outbox (`ResourceStore.events`); absent otherwise.
   */
  readonly sequence?: number;
  /**
   * The SCIM request method that made the change: `POST` (a create, or a link), `PUT`, `PATCH`, or
   * `DELETE`. What tells an RFC 9967 `prov:put` from a `prov:patch`.
   */
  readonly method?: ScimWriteMethod;
}

/** The HTTP methods of SCIM writes (RFC 7644 §3.2). */
export type ScimWriteMethod = "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Receives events; a rejection is reported to `onError` and never undoes or fails the request. With
 * a store that keeps an event outbox, an event whose delivery a dead process never finished is
 * delivered again by a live one (at least once: the `jti` identifies a repeat).
 */
export type ScimEventListener = (event: ScimEvent) => void | Promise<void>;
