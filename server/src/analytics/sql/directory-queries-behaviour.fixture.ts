/**
 * What the SQL directory reads promise beyond their HTTP tests, checked the same way on SQLite and
 * PostgreSQL over a group of 10,000 members: a page of members is one range of the membership
 * primary key that returns `limit` rows (the plan the database chooses for the query the store
 * really sends, and the rows it returns), never a read and sort of the whole group; the member
 * count is an index count; a `userName` search is a range of the uniqueness index; a user's
 * groups come from the membership index on the member.
 */
import { CompiledQuery, type Kysely } from "kysely";
import { expect, it } from "vitest";
import { v7 } from "uuid";
import type { SqlStore } from "scimkit/sql";
import type { AnalyticsStore } from "../analytics-store.js";
import type { AnalyticsDatabase, AnalyticsTables } from "./analytics-tables.js";
import { sqlAnalyticsStore } from "./sql-analytics-store.js";

/** A store whose every statement is recorded, as compiled (SQL text and parameters). */
export interface RecordingDirectoryStore {
  readonly store: SqlStore;
  close(): Promise<void>;
}

/** The dialect-specific parts of the checks. */
export interface DirectoryBehaviourOptions {
  /** Opens a migrated store over Kysely that appends every statement to `queries`. */
  open(queries: CompiledQuery[]): Promise<RecordingDirectoryStore>;
  /** The plan of `query` as text (`EXPLAIN QUERY PLAN` / `EXPLAIN`). */
  explain(db: Kysely<AnalyticsDatabase>, query: CompiledQuery): Promise<string>;
  /** Refreshes the planner's statistics after the bulk load. */
  analyze(db: Kysely<AnalyticsDatabase>): Promise<void>;
  /** What the plans must show, per dialect. */
  readonly plans: {
    /** The member page: a range of the membership primary key starting after the position. */
    readonly memberRange: RegExp;
    /** The member count of a group: an index of the membership rows, searched by group. */
    readonly memberCount: RegExp;
    /** The `userName` search: a range of the uniqueness index. */
    readonly userNameRange: RegExp;
    /** A user's groups: the membership index on the member. */
    readonly groupsOfMember: RegExp;
    /** A sort, which no page may need. */
    readonly sort: RegExp;
  };
}

const NOW = "2024-01-01T00:00:00.000Z";
const MEMBERS = 10_000;
const SEED_CHUNK = 500;

/** A user id (and `userName`) that sorts as its index does. */
const userIdOf = (index: number): string => `u${String(index).padStart(5, "0")}`;

/** Seeds `MEMBERS` users straight into the SCIM tables, with their `userName` keys as the core would write them. */
async function seedUsers(db: Kysely<AnalyticsDatabase>, orgId: string): Promise<void> {
  for (let start = 0; start < MEMBERS; start += SEED_CHUNK) {
    const indexes = Array.from({ length: Math.min(SEED_CHUNK, MEMBERS - start) }, (_, offset) => start + offset);
    await db
      .insertInto("scimkit_resources")
      .values(
        indexes.map((index) => ({
          org_id: orgId,
          id: userIdOf(index),
          resource_type: "User",
          version: 1,
          created: NOW,
          last_modified: NOW,
          external_id: null,
          attributes: JSON.stringify({ userName: userIdOf(index).toUpperCase(), displayName: `Person ${index}` }),
          member_seq: null,
        })),
      )
      .execute();
    await db
      .insertInto("scimkit_unique_keys")
      .values(
        indexes.map((index) => ({
          org_id: orgId,
          resource_type: "User",
          attribute: "userName",
          value: userIdOf(index),
          id: userIdOf(index),
        })),
      )
      .execute();
  }
}

/** Creates a group through the store's own write path, as the SCIM router would. */
async function createGroup(store: SqlStore, orgId: string, displayName: string, members: readonly string[]): Promise<string> {
  const id = v7();
  await store.create({
    orgId,
    resourceType: "Group",
    id,
    now: NOW,
    attributes: { displayName },
    uniqueKeys: [{ attribute: "displayName", value: displayName.toLowerCase() }],
    members,
    unknownMembers: "reject",
  });
  return id;
}

/** The checks, on a store `options.open` gives. */
export function directoryQueriesBehaviour(options: DirectoryBehaviourOptions): void {
  it("pages a group of 10,000 members along the membership primary key, counts it by index, and searches userName by its key", async () => {
    const queries: CompiledQuery[] = [];
    const { store, close } = await options.open(queries);
    try {
      const analytics: AnalyticsStore = await sqlAnalyticsStore(store);
      const db = store.db.withTables<AnalyticsTables>();
      const orgId = v7();
      await analytics.createOrganization({ id: orgId, name: "Large", status: "active", createdAt: NOW, updatedAt: NOW });
      await seedUsers(db, orgId);
      const everyone = Array.from({ length: MEMBERS }, (_, index) => userIdOf(index));
      const large = await createGroup(store, orgId, "Everyone", everyone);
      const small = await Promise.all(
        ["A", "B", "C"].map((name) => createGroup(store, orgId, `Small ${name}`, [userIdOf(42), userIdOf(43)])),
      );
      // Other large groups share the users, as departments do: the membership rows of a member are many groups'.
      for (const part of [0, 1, 2])
        await createGroup(
          store,
          orgId,
          `Part ${part}`,
          everyone.filter((_, index) => index % 3 !== part),
        );
      await options.analyze(db);

      // A page deep inside the group: `limit` rows from the position on, in id order.
      queries.length = 0;
      const page = await analytics.listGroupMembers(orgId, large, { limit: 50, after: userIdOf(5000) });
      expect(page?.items.map((member) => member.id)).toEqual(everyone.slice(5001, 5051));
      expect(page?.items[0]).toEqual({ id: userIdOf(5001), type: "User", display: "Person 5001", userName: "U05001" });
      expect(page?.next).toBe(userIdOf(5050));
      const memberQuery = queries.find((query) => query.sql.includes("scimkit_members"));
      if (memberQuery === undefined) throw new Error("the member page ran no statement on scimkit_members");
      // The database returns `limit` + 1 rows — the one past the page says whether another follows — not the group.
      const returned = await db.executeQuery(memberQuery);
      expect(returned.rows).toHaveLength(51);
      const memberPlan = await options.explain(db, memberQuery);
      expect(memberPlan).toMatch(options.plans.memberRange);
      expect(memberPlan).not.toMatch(options.plans.sort);

      // The last page ends the walk; the whole group in pages of 1000 is every member once, in order.
      const walked: string[] = [];
      let after: string | undefined;
      do {
        const next = await analytics.listGroupMembers(orgId, large, { limit: 1000, ...(after === undefined ? {} : { after }) });
        walked.push(...(next?.items.map((member) => member.id) ?? []));
        after = next?.next;
      } while (after !== undefined);
      expect(walked).toEqual(everyone);

      // The group list counts members without reading them.
      queries.length = 0;
      const groups = await analytics.listDirectoryGroups(orgId, undefined, { limit: 20 });
      expect(groups.items.find((group) => group.id === large)).toEqual({ id: large, displayName: "Everyone", memberCount: MEMBERS });
      for (const id of small) expect(groups.items.find((group) => group.id === id)?.memberCount).toBe(2);
      const [groupList] = queries;
      if (groupList === undefined) throw new Error("the group list ran no statement");
      expect(await options.explain(db, groupList)).toMatch(options.plans.memberCount);

      // userName prefix, case-insensitively, through the uniqueness index's range.
      queries.length = 0;
      const found = await analytics.listDirectoryUsers(orgId, "U0999", { limit: 20 });
      expect(found.items.map((user) => user.userName)).toEqual(everyone.slice(9990).map((id) => id.toUpperCase()));
      const [search] = queries;
      if (search === undefined) throw new Error("the search ran no statement");
      expect(await options.explain(db, search)).toMatch(options.plans.userNameRange);

      // A user's groups, from the membership index on the member: the large group's 10,000 rows are not read.
      queries.length = 0;
      const user = await analytics.getDirectoryUser(orgId, userIdOf(42));
      const parts = groups.items.filter((group) => group.displayName?.startsWith("Part ") && group.displayName !== "Part 0");
      expect(parts.map((group) => group.memberCount)).toEqual([6667, 6667]);
      // 42 % 3 === 0: in "Part 1" and "Part 2", not "Part 0".
      expect(user?.groups.map((group) => group.id)).toEqual([large, ...small, ...parts.map((group) => group.id)].sort());
      const groupsQuery = queries.find((query) => query.sql.includes("scimkit_members"));
      if (groupsQuery === undefined) throw new Error("the user's groups ran no statement on scimkit_members");
      expect(await options.explain(db, groupsQuery)).toMatch(options.plans.groupsOfMember);
    } finally {
      await close();
    }
  }, 120_000);
}

/** `query` with `prefix` before it, same parameters. */
export function explainOf(prefix: string, query: CompiledQuery): CompiledQuery {
  return CompiledQuery.raw(`${prefix} ${query.sql}`, [...query.parameters]);
}
