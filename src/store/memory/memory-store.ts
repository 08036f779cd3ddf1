/**
 * The in-memory reference store: every `ResourceStore` rule (architecture §3) in plain maps, for tests,
 * demos and single-process services. Data lives as long as the process.
 */
import type { ResourceStore } from "../resource-store.js";
import type { StoreOptions } from "../store-options.js";
import { storedResourceOf } from "./memory-entry.js";
import { listMemoryResources } from "./list-memory-resources.js";
import { findEntry, memoryStoreState, membersOf } from "./memory-store-state.js";
import { createInMemory, deleteFromMemory, updateInMemory } from "./memory-writes.js";

/** Options of `memoryStore`: those every built-in store shares. */
export type MemoryStoreOptions = StoreOptions;

/**
 * A `ResourceStore` that keeps everything in memory, organization by organization. Equality
 * filters on `id`, `externalId` and unique attributes are index lookups; membership deltas touch
 * only the ids they name; every write does its whole work synchronously inside its promise, so
 * each write is atomic within the process and concurrent deltas all take effect. A filtered or
 * sorted list that must scan yields to the event loop every few milliseconds, so it sees each
 * resource whole, as it was at some moment of the call. It declares `sort` and `cursor`.
 *
 * @example
 * import { memoryStore } from "scimkit/memory";
 * const store = memoryStore();
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth }));
 */
export function memoryStore(options: MemoryStoreOptions = {}): ResourceStore {
  const state = memoryStoreState(options.now ?? (() => new Date().toISOString()));
  const { organizations, events } = state;

  return {
    capabilities: { sort: true, cursor: true },
    events,
    create: (request) => createInMemory(state, request),

    async get(request) {
      const found = findEntry(state, request.orgId, request.resourceType, request.id);
      if (!found) return undefined;
      return storedResourceOf(found.entry, membersOf(found.organization, found.entry, request.members));
    },

    list: (request) => listMemoryResources(state, request),
    update: (request) => updateInMemory(state, request),
    delete: (request) => deleteFromMemory(state, request),

    async deleteOrganization(orgId) {
      // Every table, index and membership of a tenant hangs off its one Organization record.
      const organization = organizations.get(orgId);
      organizations.delete(orgId);
      events.forget(orgId);
      return organization?.typeOfId.size ?? 0;
    },
  };
}
