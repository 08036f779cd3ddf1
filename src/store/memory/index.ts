/**
 * `scimkit/memory`: the in-memory reference `ResourceStore`.
 */
export { memoryStore } from "./memory-store.js";
export type { MemoryStoreOptions } from "./memory-store.js";
