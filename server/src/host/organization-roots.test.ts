import { describe, expect, it } from "vitest";
import { memoryAnalyticsStore, type AnalyticsStore } from "@scimkit/server";
import { createTokenStore } from "scimkit";
import { memoryStore } from "scimkit/memory";
import { organizationRecord } from "./organization-record.fixture.js";
import { organizationRoots } from "./organization-roots.js";

const AT = "2026-12-01T00:00:00.000Z";

async function tree(): Promise<{ store: AnalyticsStore; reads: string[] }> {
  const inner = memoryAnalyticsStore({ resources: memoryStore(), tokens: createTokenStore() });
  const organization = (id: string, parentId?: string) => organizationRecord(id, parentId, AT);
  await inner.createOrganization(organization("holding"));
  await inner.createOrganization(organization("europe", "holding"));
  await inner.createOrganization(organization("france", "europe"));
  await inner.createOrganization(organization("solo"));
  const reads: string[] = [];
  const store: AnalyticsStore = {
    ...inner,
    getOrganization: (scope, id) => {
      reads.push(id);
      return inner.getOrganization(scope, id);
    },
  };
  return { store, reads };
}

describe("organizationRoots", () => {
  it("answers the root of an organization's tree, itself for a root or an unknown organization", async () => {
    const { store } = await tree();
    const rootOf = organizationRoots(store);
    expect(await rootOf("france")).toBe("holding");
    expect(await rootOf("europe")).toBe("holding");
    expect(await rootOf("holding")).toBe("holding");
    expect(await rootOf("solo")).toBe("solo");
    expect(await rootOf("nobody")).toBe("nobody");
  });

  it("answers from its cache synchronously, reads once for concurrent askers, and reads again after ttlMs", async () => {
    const { store, reads } = await tree();
    let clock = 0;
    const rootOf = organizationRoots(store, { ttlMs: 1_000, now: () => clock });
    const [first, second] = [rootOf("france"), rootOf("france")];
    expect(await first).toBe("holding");
    expect(await second).toBe("holding");
    expect(reads).toEqual(["france", "europe", "holding"]);
    expect(rootOf("france")).toBe("holding");
    clock += 1_000;
    expect(await rootOf("france")).toBe("holding");
    expect(reads).toHaveLength(6);
  });

  it("forgets the oldest organization beyond maxEntries", async () => {
    const { store, reads } = await tree();
    const rootOf = organizationRoots(store, { maxEntries: 1 });
    await rootOf("solo");
    await rootOf("holding");
    expect(rootOf("holding")).toBe("holding");
    expect(rootOf("solo")).toBeInstanceOf(Promise);
    expect(reads).toEqual(["solo", "holding", "solo"]);
  });
});
