import { describe, expect, it } from "vitest";
import { bareEntry, describeAuditTrailBehaviour, fullEntry } from "./audit-trail.fixture.js";
import { memoryAuditTrail } from "./memory-audit-trail.js";

describeAuditTrailBehaviour("memoryAuditTrail", async () => ({ trail: memoryAuditTrail(), org: (name) => name }));

describe("memoryAuditTrail: bounded", () => {
  it("keeps the newest maxEntriesPerOrganization entries of each organization", async () => {
    const trail = memoryAuditTrail({ maxEntriesPerOrganization: 10 });
    for (let n = 0; n < 57; n += 1) await trail.record(fullEntry("acme", n));
    await trail.record(bareEntry("globex", 1));
    const kept = await trail.list("acme", { limit: 1000 });
    expect(kept.map((record) => record.bulkId)).toEqual(Array.from({ length: 10 }, (_, i) => `op-${56 - i}`));
    expect(await trail.list("globex")).toHaveLength(1);
  });

  it("does not let a caller change what it keeps", async () => {
    const trail = memoryAuditTrail();
    const entry = { ...fullEntry("acme", 1) };
    await trail.record(entry);
    (entry as { status: number }).status = 200;
    const [kept] = await trail.list("acme");
    expect(kept?.status).toBe(412);
    expect(Object.isFrozen(kept)).toBe(true);
  });

  it("refuses a cap that is not a positive integer", () => {
    expect(() => memoryAuditTrail({ maxEntriesPerOrganization: 0 })).toThrow(/maxEntriesPerOrganization/);
  });
});
