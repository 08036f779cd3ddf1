/**
 * The behaviour every reference `AuditTrail` shares, run on the memory trail and on the SQL
 * trail over SQLite and PostgreSQL: entries come back as they were kept, per organization only,
 * newest first, a page at a time.
 */
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "./audit-sink.js";
import type { AuditTrail } from "./audit-trail.js";

/** An entry of `orgId` with every optional field set, varied by `n`. */
export function fullEntry(orgId: string, n: number): AuditEntry {
  return {
    orgId,
    tokenId: `token-${n}`,
    operation: "patch",
    resourceType: "Group",
    resourceId: `01890a5d-ac96-774b-bcce-b302099a${String(n).padStart(4, "0")}`,
    at: new Date(Date.UTC(2025, 0, 1, 12, 0, n)).toISOString(),
    outcome: "failure",
    status: 412,
    scimType: "invalidVers",
    via: "bulk",
    bulkId: `op-${n}`,
    target: `https://receiver.example/${n}`,
  };
}

/** An entry with only the required fields. */
export function bareEntry(orgId: string, n: number): AuditEntry {
  return {
    orgId,
    operation: "bulk",
    at: new Date(Date.UTC(2025, 0, 1, 12, 0, n)).toISOString(),
    outcome: "failure",
    status: 413,
    via: "bulk",
  };
}

function withoutId<T extends { readonly id: string }>(record: T): Omit<T, "id"> {
  const { id: _id, ...rest } = record;
  return rest;
}

/**
 * Declares the shared tests. `open` gives a fresh, empty trail for each test, in a unique
 * organization namespace (`orgPrefix`) so suites may share a database.
 */
export function describeAuditTrailBehaviour(
  name: string,
  open: () => Promise<{ readonly trail: AuditTrail; readonly org: (name: string) => string }>,
): void {
  describe(`${name}: audit trail behaviour`, () => {
    it("gives back every field of an entry as it was kept, optional ones absent when absent", async () => {
      const { trail, org } = await open();
      const acme = org("acme");
      await trail.record(fullEntry(acme, 1));
      await trail.record(bareEntry(acme, 2));
      const [bare, full] = await trail.list(acme);
      expect(withoutId(full!)).toEqual(fullEntry(acme, 1));
      expect(withoutId(bare!)).toEqual(bareEntry(acme, 2));
      expect(Object.keys(bare!).sort()).toEqual(["at", "id", "operation", "orgId", "outcome", "status", "via"]);
      expect(full!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(full!.id).not.toBe(bare!.id);
    });

    it("lists one organization's entries only, newest first", async () => {
      const { trail, org } = await open();
      const [acme, globex] = [org("acme"), org("globex")];
      for (let n = 0; n < 6; n += 1) await trail.record(fullEntry(n % 2 === 0 ? acme : globex, n));
      expect((await trail.list(acme)).map((record) => record.bulkId)).toEqual(["op-4", "op-2", "op-0"]);
      expect((await trail.list(globex)).map((record) => record.bulkId)).toEqual(["op-5", "op-3", "op-1"]);
      expect(await trail.list(org("initech"))).toEqual([]);
    });

    it("pages with limit and before, and never crosses into another organization", async () => {
      const { trail, org } = await open();
      const [acme, globex] = [org("acme"), org("globex")];
      for (let n = 0; n < 7; n += 1) {
        await trail.record(fullEntry(acme, n));
        await trail.record(fullEntry(globex, n));
      }
      const pages: string[][] = [];
      let before: string | undefined;
      for (;;) {
        const page = await trail.list(acme, { limit: 3, ...(before === undefined ? {} : { before }) });
        if (page.length === 0) break;
        pages.push(page.map((record) => record.bulkId ?? ""));
        before = page.at(-1)?.id;
      }
      expect(pages).toEqual([["op-6", "op-5", "op-4"], ["op-3", "op-2", "op-1"], ["op-0"]]);
      // A globex id as the cursor still lists acme's entries only.
      const [globexNewest] = await trail.list(globex, { limit: 1 });
      const crossed = await trail.list(acme, { before: globexNewest!.id });
      expect(crossed.every((record) => record.orgId === acme)).toBe(true);
    });

    it("defaults to 100 entries, caps a page at 1,000 and refuses a limit that is not a positive integer", async () => {
      const { trail, org } = await open();
      const acme = org("acme");
      for (let n = 0; n < 120; n += 1) await trail.record(bareEntry(acme, n % 60));
      expect(await trail.list(acme)).toHaveLength(100);
      expect(await trail.list(acme, { limit: 5000 })).toHaveLength(120);
      await expect(trail.list(acme, { limit: 0 })).rejects.toThrow(/limit must be a positive integer/);
      await expect(trail.list(acme, { limit: 1.5 })).rejects.toThrow(/limit must be a positive integer/);
    });

    it("keeps entries recorded concurrently, each once", async () => {
      const { trail, org } = await open();
      const acme = org("acme");
      await Promise.all(Array.from({ length: 50 }, (_, n) => trail.record(fullEntry(acme, n))));
      const kept = await trail.list(acme, { limit: 1000 });
      expect(kept.map((record) => record.bulkId).sort()).toEqual(Array.from({ length: 50 }, (_, n) => `op-${n}`).sort());
      expect(new Set(kept.map((record) => record.id)).size).toBe(50);
    });

    it("keeps organization ids and text exactly, prototype names and quotes included", async () => {
      const { trail, org } = await open();
      const odd = org("__proto__");
      const entry: AuditEntry = { ...fullEntry(odd, 1), resourceId: `it's "quoted" \u00e9`, bulkId: "constructor" };
      await trail.record(entry);
      const [kept] = await trail.list(odd);
      expect(withoutId(kept!)).toEqual(entry);
    });
  });
}
