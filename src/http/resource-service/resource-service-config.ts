import type { FilterLimits } from "../../scim/filter/parse-filter.js";
import type { ResourceProfile } from "../../scim/schema/resource-profile.js";
import type { SchemaRegistry } from "../../scim/schema/schema-registry.js";
import type { ResourceStore, UnknownMemberPolicy } from "../../store/resource-store.js";
import type { ScimEvent } from "../lifecycle-events/scim-event.js";
import type { EventDelivery } from "../lifecycle-events/write-events.js";
import type { WriteLimits } from "./write-limits.js";

/** What the service is built from: the router's store, registry and options. */
export interface ResourceServiceConfig {
  readonly store: ResourceStore;
  readonly registry: SchemaRegistry;
  readonly profile: ResourceProfile;
  readonly unknownMembers: UnknownMemberPolicy;
  readonly filterLimits: Partial<FilterLimits>;
  /** Bounds on what one write may carry; see `ScimRouterOptions.writeLimits`. */
  readonly writeLimits: WriteLimits;
  readonly defaultPageSize: number;
  readonly maxPageSize: number;
  /** Key of the MAC that seals cursors (RFC 9865); see `ScimRouterOptions.cursorSecret`. */
  readonly cursorSecret: string;
  /** Delivers an event; never throws (the router reports listener failures itself). */
  readonly emit: (event: ScimEvent) => Promise<void>;
  /**
   * How events go through the store's outbox (`ResourceStore.events`), when it has one. Default:
   * a listener is assumed, a lease of 60 seconds, failures to mark delivery thrown away.
   */
  readonly events?: Partial<Pick<EventDelivery, "listening" | "leaseMs" | "onError">> & {
    /** Whether writes record their events in the store's outbox. Default true when the store has one. */
    readonly durable?: boolean;
  };
}
