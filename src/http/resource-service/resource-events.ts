/**
 * The lifecycle events of one committed write, named after the resource type (`ResourceEventType`):
 * what the host's `onEvent` receives, built from what the store reports it did.
 */
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { SchemaRegistry } from "../../scim/schema/schema-registry.js";
import type { MembershipChange, StoredResource } from "../../store/resource-store.js";
import { uuidV7 } from "../../uuid-v7.js";
import { renderResource } from "./render-resource.js";
import type { ServiceContext } from "./resource-service.js";
import type { ScimEvent, ScimEventAction, ScimWriteMethod } from "../lifecycle-events/scim-event.js";
import type { TypeHandler } from "./type-handler.js";

/** The events of the writes to resources of one type in one organization. */
export interface ResourceEvents {
  /** A create: `created`, then the initial members as `members.added` (and `members.ignored`). */
  created(resource: StoredResource, membership: MembershipChange | undefined): ScimEvent[];
  /**
   * An update: `updated` (with `activated`/`deactivated` when `active` flipped) when the attributes
   * changed, then what happened to the members.
   */
  updated(before: ScimObject, resource: StoredResource, attributesChanged: boolean, membership: MembershipChange | undefined): ScimEvent[];
  /**
   * A POST that linked an existing resource (`existingUsers: "link"`): `linked`, whether or not the
   * attributes changed (the client took the resource over either way), with `activated`/`deactivated`
   * when `active` flipped.
   */
  linked(before: ScimObject, resource: StoredResource): ScimEvent[];
  /** A delete: `deleted`, carrying the resource as it last was. */
  deleted(resource: StoredResource): ScimEvent[];
}

/** What the events of one write are built from. */
interface EventScope {
  readonly registry: SchemaRegistry;
  readonly type: TypeHandler;
  readonly context: ServiceContext;
  /** `User` → `user`, so `user.created`, `group.members.added`, `team.created`. */
  readonly prefix: string;
  /** The events of one write share one rendering of the resource (`updated` with `deactivated`, …). */
  rendered: { readonly stored: StoredResource; readonly resource: ScimObject } | undefined;
}

// Module functions over a scope rather than closures per write: under tsx (`npm start`, the
// benchmark) esbuild's keepNames gives every named closure a `defineProperty` call.

function render(scope: EventScope, stored: StoredResource): ScimObject {
  if (scope.rendered?.stored !== stored) {
    // Never with members: a large group would have to be loaded and rendered for each event.
    const { members: _members, ...withoutMembers } = stored;
    scope.rendered = { stored, resource: renderResource(scope.registry, scope.type.schema, scope.context.baseUrl, withoutMembers) };
  }
  return scope.rendered.resource;
}

// Every event of one write carries the write's method: the members of a create came with its POST.
function event(
  scope: EventScope,
  method: ScimWriteMethod,
  action: ScimEventAction,
  stored: StoredResource,
  memberIds?: readonly string[],
): ScimEvent {
  return {
    type: `${scope.prefix}.${action}`,
    orgId: scope.context.orgId,
    resourceType: scope.type.id,
    id: stored.id,
    resource: render(scope, stored),
    ...(memberIds ? { memberIds } : {}),
    jti: uuidV7(),
    method,
  };
}

function membershipEvents(
  scope: EventScope,
  method: ScimWriteMethod,
  stored: StoredResource,
  change: MembershipChange | undefined,
): ScimEvent[] {
  if (!change) return [];
  const events: ScimEvent[] = [];
  // Also on create: a host that grants access by group needs the initial members too.
  if (change.added.length > 0) events.push(event(scope, method, "members.added", stored, change.added));
  if (change.removed.length > 0) events.push(event(scope, method, "members.removed", stored, change.removed));
  if (change.ignored.length > 0) events.push(event(scope, method, "members.ignored", stored, change.ignored));
  return events;
}

function activationEvents(scope: EventScope, method: ScimWriteMethod, before: ScimObject, after: StoredResource): ScimEvent[] {
  if (!scope.type.hasActive) return [];
  // A resource without `active` counts as active: RFC 7643 §4.1.1 leaves the default to the provider.
  const wasActive = before["active"] !== false;
  const isActive = after.attributes["active"] !== false;
  if (wasActive === isActive) return [];
  return [event(scope, method, isActive ? "activated" : "deactivated", after)];
}

/** The event builder for the resource type `type` in `context`, rendering as responses do. */
export function resourceEvents(
  registry: SchemaRegistry,
  type: TypeHandler,
  context: ServiceContext,
  updateMethod: "PUT" | "PATCH" = "PATCH",
): ResourceEvents {
  const scope: EventScope = {
    registry,
    type,
    context,
    prefix: `${type.id.charAt(0).toLowerCase()}${type.id.slice(1)}`,
    rendered: undefined,
  };
  return {
    created(resource, membership) {
      return [event(scope, "POST", "created", resource), ...membershipEvents(scope, "POST", resource, membership)];
    },
    updated(before, resource, attributesChanged, membership) {
      return [
        ...(attributesChanged
          ? [event(scope, updateMethod, "updated", resource), ...activationEvents(scope, updateMethod, before, resource)]
          : []),
        ...membershipEvents(scope, updateMethod, resource, membership),
      ];
    },
    linked(before, resource) {
      return [event(scope, "POST", "linked", resource), ...activationEvents(scope, "POST", before, resource)];
    },
    deleted(resource) {
      return [event(scope, "DELETE", "deleted", resource)];
    },
  };
}
