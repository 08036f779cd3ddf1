/**
 * What the SQL replica of other regions' directories (issue 30) promises beyond the conformance
 * kit, checked the same way on SQLite and PostgreSQL: it outlives the process (a host restarted
 * while a peer is unreachable still knows the peer's organizations); a replacement failing after
 * it has deleted and inserted rows rolls all of them back; a large feed is written in statements
 * under the dialect's parameter bound; and two processes replacing one region at once both
 * succeed, leaving one feed whole.
 */
import type { KyselyPlugin, RootOperationNode, ValuesNode } from "kysely";
import { expect, it } from "vitest";
import type { SqlStore } from "scimkit/sql";
import type { RegionDirectoryEntry } from "../analytics-store.js";
import { sqlAnalyticsStore } from "./sql-analytics-store.js";

/** One database of one check, which the check opens as often as a restarting host would. */
export interface RegionDirectoryDatabase {
  /** Opens a store on the database, as a new process does: its own connections, migrating on open. */
  open(): Promise<SqlStore>;
  /** Removes the database; every store opened on it is closed first. */
  drop(): Promise<void>;
}

/** The dialect-specific part of the checks. */
export interface RegionDirectoryBehaviourOptions {
  /** A new, empty database for one check. */
  database(): Promise<RegionDirectoryDatabase>;
}

const UPDATED_AT = "2026-03-01T09:00:00.000Z";

/** `count` entries of `region`, ids `<prefix>-00000`, … in id order, every third a root. */
function feed(region: string, prefix: string, count: number, name = "Organization"): RegionDirectoryEntry[] {
  return Array.from({ length: count }, (_, index) => {
    const id = `${prefix}-${String(index).padStart(5, "0")}`;
    return {
      id,
      name: `${name} ${index}`,
      ...(index % 3 === 0 ? {} : { parentId: `${prefix}-00000` }),
      homeRegion: region,
      status: index % 7 === 0 ? "suspended" : "active",
      updatedAt: UPDATED_AT,
    };
  });
}

/** Records each insert into the replica's table the store sends, with the rows it carries. */
function countingInserts(): { readonly plugin: KyselyPlugin; readonly inserts: { readonly rows: number }[] } {
  const inserts: { rows: number }[] = [];
  const plugin: KyselyPlugin = {
    transformQuery({ node }): RootOperationNode {
      // By `kind`, the nodes' public shape (their factories are Kysely internals).
      if (node.kind === "InsertQueryNode" && node.into?.table.identifier.name === "scimkit_region_directory") {
        const values = node.values?.kind === "ValuesNode" ? (node.values as ValuesNode).values : [];
        inserts.push({ rows: values.length });
      }
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { plugin, inserts };
}

/** Registers the checks; `options` supply the databases. */
export function regionDirectoryBehaviour(options: RegionDirectoryBehaviourOptions): void {
  /** Runs `body` on a database of its own, dropped after, whatever the outcome. */
  const onDatabase = (name: string, body: (database: RegionDirectoryDatabase) => Promise<void>) =>
    it(name, async () => {
      const database = await options.database();
      try {
        await body(database);
      } finally {
        await database.drop();
      }
    });

  onDatabase("the replica outlives the store: closed and opened again, it lists every region's entries as replaced", async (database) => {
    const eu = feed("eu", "eu", 3);
    const ap = feed("ap", "ap", 2);
    const first = await database.open();
    try {
      const analytics = await sqlAnalyticsStore(first);
      await analytics.replaceRegionEntries("eu", eu);
      await analytics.replaceRegionEntries("ap", ap);
    } finally {
      await first.close();
    }
    const second = await database.open();
    try {
      const analytics = await sqlAnalyticsStore(second, { migrate: false });
      expect(await analytics.migrate()).toEqual([]);
      expect(await analytics.listRegionEntries()).toEqual([...ap, ...eu]);
    } finally {
      await second.close();
    }
  });

  onDatabase(
    "a replacement that fails after deleting the region's rows and inserting part of the feed leaves the previous replica",
    async (database) => {
      const store = await database.open();
      try {
        const { plugin, inserts } = countingInserts();
        const analytics = await sqlAnalyticsStore({ db: store.db.withPlugin(plugin), dialect: store.dialect });
        const eu = feed("eu", "eu", 4);
        const ap = feed("ap", "ap", 1);
        await analytics.replaceRegionEntries("eu", eu);
        await analytics.replaceRegionEntries("ap", ap);
        inserts.length = 0;
        // Passes every check that needs no read; the last entry's id is ap's, so only the primary
        // key refuses it — in the last insert, after the delete and the inserts before it.
        const held = ap[0]?.id ?? "";
        const refused = [...feed("eu", "eu-new", 1_999), { ...(eu[0] as RegionDirectoryEntry), id: held }];
        await expect(analytics.replaceRegionEntries("eu", refused)).rejects.toThrow();
        expect(inserts.length, "inserts sent before the failure").toBeGreaterThan(1);
        expect(await analytics.listRegionEntries()).toEqual([...ap, ...eu]);
      } finally {
        await store.close();
      }
    },
  );

  onDatabase("a large feed is written in several statements, each under the dialect's parameter bound", async (database) => {
    const store = await database.open();
    try {
      const { plugin, inserts } = countingInserts();
      const analytics = await sqlAnalyticsStore({ db: store.db.withPlugin(plugin), dialect: store.dialect });
      const eu = feed("eu", "eu", 2_000);
      await analytics.replaceRegionEntries("eu", eu);
      expect(inserts.length).toBeGreaterThan(1);
      expect(inserts.reduce((sum, insert) => sum + insert.rows, 0)).toBe(eu.length);
      // Six parameters an entry.
      for (const insert of inserts) expect(insert.rows * 6).toBeLessThanOrEqual(store.dialect.maxParameters);
      expect(await analytics.listRegionEntries()).toEqual(eu);
    } finally {
      await store.close();
    }
  });

  onDatabase("two processes replacing one region at once both succeed, and the replica is one of their feeds, whole", async (database) => {
    const stores = [await database.open(), await database.open()] as const;
    try {
      const one = await sqlAnalyticsStore(stores[0]);
      const two = await sqlAnalyticsStore(stores[1]);
      const ap = feed("ap", "ap", 2);
      await one.replaceRegionEntries("ap", ap);
      await one.replaceRegionEntries("eu", feed("eu", "eu", 600, "Before"));
      // The same organizations, as two reads of one feed a moment apart; several rounds, as the
      // interleaving is the databases'.
      for (let round = 0; round < 5; round += 1) {
        const byOne = feed("eu", "eu", 600, `One ${round}`);
        const byTwo = feed("eu", "eu", 600, `Two ${round}`);
        await Promise.all([one.replaceRegionEntries("eu", byOne), two.replaceRegionEntries("eu", byTwo)]);
        const listed = await two.listRegionEntries();
        expect(
          [
            [...ap, ...byOne],
            [...ap, ...byTwo],
          ],
          `round ${round}`,
        ).toContainEqual(listed);
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
}
