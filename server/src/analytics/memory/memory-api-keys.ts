/**
 * The analytics API keys of the memory analytics store, by digest: stored, rotated, looked up.
 */
import type { AdminUserStore } from "../analytics-store.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";
import { plainCopy } from "./plain-copy.js";

/** The key members of `AdminUserStore` over `state.apiKeys`. */
export function memoryApiKeys(
  state: MemoryAnalyticsState,
): Pick<AdminUserStore, "insertApiKey" | "replaceApiKey" | "replaceOperatorKeys" | "findApiKeyByHash" | "hasOperatorKey"> {
  const { apiKeys } = state;
  return {
    async insertApiKey(key) {
      if (apiKeys.has(key.hash)) throw new Error("memoryAnalyticsStore: an API key with this digest exists");
      apiKeys.set(key.hash, plainCopy(key));
    },

    async replaceApiKey(id, key) {
      const old = [...apiKeys.values()].find((candidate) => candidate.id === id);
      if (old === undefined) return false;
      if (apiKeys.has(key.hash)) throw new Error("memoryAnalyticsStore: an API key with this digest exists");
      apiKeys.delete(old.hash);
      apiKeys.set(key.hash, plainCopy(key));
      return true;
    },

    async replaceOperatorKeys(key) {
      if (key.subject.kind !== "operator") throw new TypeError("replaceOperatorKeys: the key is not an operator key");
      if (apiKeys.has(key.hash)) throw new Error("memoryAnalyticsStore: an API key with this digest exists");
      const retired = [...apiKeys.values()].filter((candidate) => candidate.subject.kind === "operator");
      for (const old of retired) apiKeys.delete(old.hash);
      apiKeys.set(key.hash, plainCopy(key));
      return retired.length;
    },

    async findApiKeyByHash(hash) {
      const key = apiKeys.get(hash);
      return key === undefined ? undefined : plainCopy(key);
    },

    async hasOperatorKey() {
      for (const key of apiKeys.values()) if (key.subject.kind === "operator") return true;
      return false;
    },
  };
}
