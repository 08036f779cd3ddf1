/**
 * The directory reads in SQL (issue 18): an organization's users and groups from
 * `scimkit_resources`, its memberships from `scimkit_members`, where the SCIM router keeps them.
 * Lists walk the `(org_id, resource_type, id)` index in id order and stop one row past the page;
 * a group's members are one range of the membership primary key `(org_id, group_id, member_id)`,
 * so a page of a group of 100,000 reads about a page of rows. Every value is a bound parameter,
 * and a search is a literal prefix (the dialect escapes pattern characters).
 */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from "kysely";
import { resourceAttribute, resourceColumns, storedResourceOf, type SqlDialect } from "scimkit/sql";
import { uniqueValue } from "scimkit/store";
import type { AnalyticsDirectory, DirectoryGroup, DirectoryMember, DirectoryUser } from "../analytics-directory.js";
import type { AnalyticsDatabase } from "./analytics-tables.js";
import { directoryUserOf, withoutSecrets } from "../memory/directory-user-of.js";
import { pageOf, rowsToRead } from "./keyset-page.js";

type ResourceAlias = ExpressionBuilder<AnalyticsDatabase & { r: AnalyticsDatabase["scimkit_resources"] }, "r">;

/** The JSON string `name` of the resource `alias` as a selected column `as`. */
function jsonColumn(dialect: SqlDialect, alias: string, name: string, as: string) {
  return sql<string | null>`${dialect.jsonText(resourceAttribute(alias, name))}`.as(as);
}

/** Whether `text`, lower-cased by the dialect, starts with `needle` (already lower-cased). */
function startsWith(dialect: SqlDialect, text: Expression<unknown>, needle: string): Expression<SqlBool> {
  return dialect.substring(dialect.lower(text), "sw", needle);
}

/** A count as a number: pg returns `count(*)` as decimal text. */
function counted(value: number | string | bigint): number {
  return Number(value);
}

/** The directory members of `AnalyticsStore` over `db`. */
export function directoryQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): AnalyticsDirectory {
  /**
   * The search condition of a user: `userName` through its uniqueness key — already NFC and
   * lower-cased, so the prefix test is a range of the key's primary-key index instead of a
   * lower() of every row's JSON — or `externalId` (its column) or `displayName` (its JSON).
   */
  function userSearch(orgId: string, search: string) {
    const needle = search.toLowerCase();
    return (eb: ResourceAlias) =>
      eb.or([
        eb(
          "r.id",
          "in",
          eb
            .selectFrom("scimkit_unique_keys as k")
            .select("k.id")
            .where("k.org_id", "=", orgId)
            .where("k.resource_type", "=", "User")
            .where("k.attribute", "=", "userName")
            .where(dialect.substring(sql.ref("k.value"), "sw", uniqueValue(search, false))),
        ),
        startsWith(dialect, sql.ref("r.external_id"), needle),
        startsWith(dialect, dialect.jsonText(resourceAttribute("r", "displayName")), needle),
      ]);
  }

  /** The search condition of a group: `externalId` (its column) or `displayName` (its JSON), which no index folds. */
  function groupSearch(search: string) {
    const needle = search.toLowerCase();
    return (eb: ResourceAlias) =>
      eb.or([
        startsWith(dialect, sql.ref("r.external_id"), needle),
        startsWith(dialect, dialect.jsonText(resourceAttribute("r", "displayName")), needle),
      ]);
  }

  /** The resources of one type of one organization after `after`, in id order. */
  function resourcesOf(orgId: string, resourceType: string, after: string | undefined) {
    let query = db.selectFrom("scimkit_resources as r").where("r.org_id", "=", orgId).where("r.resource_type", "=", resourceType);
    if (after !== undefined) query = query.where("r.id", ">", after);
    return query;
  }

  return {
    async listDirectoryUsers(orgId, search, page) {
      let query = resourcesOf(orgId, "User", page.after).select(resourceColumns);
      if (search !== undefined) query = query.where(userSearch(orgId, search));
      const rows = await query.orderBy("r.id").limit(rowsToRead(page)).execute();
      return pageOf(
        rows,
        page,
        (row): DirectoryUser => directoryUserOf(storedResourceOf(row, dialect)),
        (user) => user.id,
      );
    },

    async getDirectoryUser(orgId, userId) {
      const row = await resourcesOf(orgId, "User", undefined).select(resourceColumns).where("r.id", "=", userId).executeTakeFirst();
      if (row === undefined) return undefined;
      const user = storedResourceOf(row, dialect);
      // By the membership index on (org_id, member_id): the user's groups, never a group's members.
      const groups = await db
        .selectFrom("scimkit_members as m")
        .innerJoin("scimkit_resources as g", (join) => join.onRef("g.org_id", "=", "m.org_id").onRef("g.id", "=", "m.group_id"))
        .select(["g.id", jsonColumn(dialect, "g", "displayName", "display_name")])
        .where("m.org_id", "=", orgId)
        .where("m.member_id", "=", userId)
        .orderBy("g.id")
        .execute();
      return {
        id: user.id,
        attributes: withoutSecrets(user.attributes),
        created: user.created,
        lastModified: user.lastModified,
        version: user.version,
        groups: groups.map((group) => ({
          id: group.id,
          ...(typeof group.display_name === "string" ? { displayName: group.display_name } : {}),
        })),
      };
    },

    async listDirectoryGroups(orgId, search, page) {
      let query = resourcesOf(orgId, "Group", page.after).select((eb) => [
        "r.id",
        "r.external_id",
        jsonColumn(dialect, "r", "displayName", "display_name"),
        // An index-only count of the group's membership rows: no member is read.
        eb
          .selectFrom("scimkit_members as m")
          .select(eb.fn.countAll<number | string>().as("n"))
          .whereRef("m.org_id", "=", "r.org_id")
          .whereRef("m.group_id", "=", "r.id")
          .as("member_count"),
      ]);
      if (search !== undefined) query = query.where(groupSearch(search));
      const rows = await query.orderBy("r.id").limit(rowsToRead(page)).execute();
      return pageOf(
        rows,
        page,
        (row): DirectoryGroup => ({
          id: row.id,
          ...(typeof row.display_name === "string" ? { displayName: row.display_name } : {}),
          ...(row.external_id === null ? {} : { externalId: row.external_id }),
          memberCount: counted(row.member_count ?? 0),
        }),
        (group) => group.id,
      );
    },

    async listGroupMembers(orgId, groupId, page) {
      const group = await resourcesOf(orgId, "Group", undefined).select("r.id").where("r.id", "=", groupId).executeTakeFirst();
      if (group === undefined) return undefined;
      // The page alone first, so the planner has nothing to join while it walks the range.
      let query = db
        .selectFrom("scimkit_members as m")
        .select(["m.member_id", "m.member_type"])
        .where("m.org_id", "=", orgId)
        .where("m.group_id", "=", groupId);
      if (page.after !== undefined) query = query.where("m.member_id", ">", page.after);
      const rows = await query.orderBy("m.member_id").limit(rowsToRead(page)).execute();
      // Then who they are, by primary key: at most a page of lookups (the foreign key cascades, so each exists).
      const shown = rows.slice(0, page.limit).map((row) => row.member_id);
      const names =
        shown.length === 0
          ? []
          : await db
              .selectFrom("scimkit_resources as r")
              .select(["r.id", jsonColumn(dialect, "r", "displayName", "display_name"), jsonColumn(dialect, "r", "userName", "user_name")])
              .where("r.org_id", "=", orgId)
              .where("r.id", "in", shown)
              .execute();
      const byId = new Map(names.map((name) => [name.id, name]));
      return pageOf(
        rows,
        page,
        (row): DirectoryMember => {
          const name = byId.get(row.member_id);
          return {
            id: row.member_id,
            type: row.member_type,
            ...(typeof name?.display_name === "string" ? { display: name.display_name } : {}),
            ...(row.member_type === "User" && typeof name?.user_name === "string" ? { userName: name.user_name } : {}),
          };
        },
        (member) => member.id,
      );
    },
  };
}
