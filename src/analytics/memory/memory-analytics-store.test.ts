import { describe, expect, it } from "vitest";
import { createTokenStore } from "../../auth/hashed-token-store.js";
import { memoryStore } from "../../store/memory/memory-store.js";
import type { ResourceStore } from "../../store/resource-store.js";
import { userAttributes, uniqueKeys } from "../../testkit/suites/helpers.js";
import type { AnalyticsStore, Organization } from "../analytics-store.js";
import { describeAnalyticsStoreConformance } from "../testkit/describe-analytics-store-conformance.js";
import { memoryAnalyticsStore } from "./memory-analytics-store.js";

describeAnalyticsStoreConformance("memory", () => {
  const resources = memoryStore();
  const tokens = createTokenStore();
  return { analytics: memoryAnalyticsStore({ resources, tokens }), resources, tokens, close: async () => {} };
});

// The same checks through a ResourceStore that has no deleteOrganization and no cursor paging,
// as a host's own store may be: learners are then read by index and an organization is emptied
// one resource at a time.
describeAnalyticsStoreConformance("memory over a minimal ResourceStore", () => {
  const full = memoryStore();
  const resources: ResourceStore = {
    capabilities: { sort: true, cursor: false },
    create: (request) => full.create(request),
    get: (request) => full.get(request),
    list: (request) => full.list(request),
    update: (request) => full.update(request),
    delete: (request) => full.delete(request),
  };
  const tokens = createTokenStore();
  return { analytics: memoryAnalyticsStore({ resources, tokens }), resources, tokens, close: async () => {} };
});
