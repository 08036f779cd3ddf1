/**
 * What a resource service holds for the life of its router (architecture §4b): the store, the
 * registry and options, a handler per resource type, how events are delivered, and the locks that
 * serialize this process's writes to one resource and its POSTs that may link one user. Built
 * once; every operation is a function of it, so a request allocates nothing here.
 */
import type { SchemaRegistry } from "../../scim/schema/schema-registry.js";
import type { ResourceStore } from "../../store/resource-store.js";
import { deliveredMarks } from "../lifecycle-events/delivered-marks.js";
import type { EventDelivery } from "../lifecycle-events/write-events.js";
import { type KeyedMutex, keyedMutex } from "./keyed-mutex.js";
import type { ResourceServiceConfig } from "./resource-service-config.js";
import { createTypeHandler, type TypeHandler } from "./type-handler.js";

/** The state of one resource service. */
export interface ResourceServiceState {
  /** The router's options. */
  readonly config: ResourceServiceConfig;
  /** The router's store. */
  readonly store: ResourceStore;
  /** The router's schemas and resource types. */
  readonly registry: SchemaRegistry;
  /** A handler per registered resource type, by id. */
  readonly handlers: ReadonlyMap<string, TypeHandler>;
  /** How write events reach the store's outbox and the listener. */
  readonly delivery: EventDelivery;
  /** Serializes this process's writes to one resource (keyed by organization, type and id). */
  readonly writing: KeyedMutex;
  /** Serializes this process's POSTs that may link the same user (link-existing-user.ts). */
  readonly linking: KeyedMutex;
}

/** The state of the service `config` describes. */
export function resourceServiceState(config: ResourceServiceConfig): ResourceServiceState {
  const { store, registry } = config;
  const handlers = new Map<string, TypeHandler>();
  for (const type of registry.resourceTypes) {
    const schema = registry.resourceType(type.id);
    if (schema) handlers.set(type.id, createTypeHandler(schema, config.profile));
  }
  const outbox = config.events?.durable === false ? undefined : store.events;
  const onEventsError = config.events?.onError ?? (() => {});
  const delivery: EventDelivery = {
    outbox,
    emit: config.emit,
    listening: config.events?.listening ?? true,
    leaseMs: config.events?.leaseMs ?? 60_000,
    onError: onEventsError,
    // One transaction per batch of delivered events, not one per write (issue 20).
    ...(outbox ? { marks: deliveredMarks(outbox, onEventsError) } : {}),
  };
  return { config, store, registry, handlers, delivery, writing: keyedMutex(), linking: keyedMutex() };
}
