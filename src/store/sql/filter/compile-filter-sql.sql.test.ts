/**
 * The SQL text and parameters the compiler writes, per dialect: filter values only ever as bound
 * parameters (a hostile value stays a parameter), pattern characters escaped for `co`/`sw`/`ew`,
 * schema-derived JSON keys as literals, the index-friendly forms of `id`, `externalId` and unique
 * attributes, one subquery per `attr[…]` bracket, constant folding, and the sort and cursor SQL.
 * Behaviour is checked against real databases elsewhere; this pins the shape.
 */
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, type CompiledQuery } from "kysely";
import { describe, expect, it } from "vitest";
import { createSchemaRegistry } from "../../../scim/schema/schema-registry.js";
import type { SortPosition, SortSpec } from "../../resource-store.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { compileFilterSql } from "./compile-filter-sql.js";
import type { FilterDialect } from "./filter-dialect.js";
import { resolvedFilter } from "./filter-agreement.fixture.js";
import { mysqlFilterDialect } from "./mysql-filter-dialect.js";
import { createPostgresFilterDialect, postgresFilterDialect } from "./postgres-filter-dialect.js";
import { keysetAfterSql, orderBySql } from "./sort-sql.js";
import { createSqliteFilterDialect, sqliteFilterDialect } from "./sqlite-filter-dialect.js";

const users = createSchemaRegistry().resourceType("User")!;
const groups = createSchemaRegistry().resourceType("Group")!;
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

// Compiling needs no connection; these are never opened.
const unreachable = (): Promise<never> => Promise.reject(new Error("compile only"));
const builders = {
  sqlite: new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database: unreachable }) }),
  postgres: new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: unreachable }) }),
  mysql: new Kysely<SqlStoreDatabase>({ dialect: new MysqlDialect({ pool: unreachable }) }),
};
const dialects: Record<keyof typeof builders, FilterDialect> = {
  sqlite: sqliteFilterDialect,
  postgres: postgresFilterDialect,
  mysql: mysqlFilterDialect,
};

interface Compiled {
  readonly where: string;
  readonly parameters: readonly unknown[];
}

function strip(query: CompiledQuery): Compiled {
  const where = query.sql.replace(/^select ["`]r["`]\.["`]id["`] from ["`]scimkit_resources["`] as ["`]r["`] where /, "");
  return { where, parameters: query.parameters };
}

function compiled(name: keyof typeof builders, text: string, schema = users, dialect = dialects[name]): Compiled {
  const condition = compileFilterSql(resolvedFilter(schema, text), { dialect, resource: "r" });
  return strip(builders[name].selectFrom("scimkit_resources as r").select("r.id").where(condition).compile());
}

describe("compileFilterSql: values are parameters", () => {
  const hostile = "'); drop table scimkit_resources; --";

  it.each(["sqlite", "postgres", "mysql"] as const)("%s: a hostile value never enters the SQL text", (name) => {
    for (const text of [
      `userName eq ${JSON.stringify(hostile)}`,
      `title co ${JSON.stringify(hostile)}`,
      `emails[value sw ${JSON.stringify(hostile)}]`,
    ]) {
      const { where, parameters } = compiled(name, text);
      expect(where).not.toContain("drop table");
      expect(parameters.some((parameter) => typeof parameter === "string" && parameter.includes("drop table"))).toBe(true);
    }
  });

  it.each(["sqlite", "postgres", "mysql"] as const)("%s: schema names are literals, values parameters", (name) => {
    const { where, parameters } = compiled(name, `${ENTERPRISE}:department eq "Sales"`);
    expect(where).toContain(ENTERPRISE);
    expect(where).not.toContain("sales");
    expect(parameters).toEqual(["sales"]);
  });
});

describe("compileFilterSql: SQLite", () => {
  it("userName eq looks the unique key up with a correlated IN (SQLite drives it from the primary key)", () => {
    expect(compiled("sqlite", 'userName eq "Bob"')).toEqual({
      where:
        '"r"."id" in (select "r_uk1"."id" from "scimkit_unique_keys" as "r_uk1" where "r_uk1"."org_id" = "r"."org_id" and ' +
        '"r_uk1"."resource_type" = "r"."resource_type" and "r_uk1"."attribute" = ? and "r_uk1"."value" = ?)',
      parameters: ["userName", "bob"],
    });
  });

  it("externalId eq and id eq compare their indexed columns as they are (caseExact)", () => {
    expect(compiled("sqlite", 'externalId eq "E-1"')).toEqual({ where: '"r"."external_id" = ?', parameters: ["E-1"] });
    expect(compiled("sqlite", 'id eq "A-1"')).toEqual({ where: '"r"."id" = ?', parameters: ["A-1"] });
  });

  it("co/sw/ew use GLOB (case-sensitive) with *, ? and [ escaped; % and _ are literal there", () => {
    expect(compiled("sqlite", 'title co "50%_*?[]\\\\"')).toEqual({
      where: `scimkit_lower(json_extract("r"."attributes", '$."title"')) glob ?`,
      parameters: ["*50%_[*][?][[]]\\*"],
    });
    expect(compiled("sqlite", `${ENTERPRISE}:department sw "A*"`).parameters).toEqual(["a[*]*"]);
    expect(compiled("sqlite", 'externalId ew "X?"')).toEqual({ where: '"r"."external_id" glob ?', parameters: ["*X[?]"] });
  });

  it("a bracket is one subquery over the array, so one element satisfies all of it", () => {
    expect(compiled("sqlite", 'emails[type eq "work" and value co "x"]')).toEqual({
      where:
        `exists (select 1 from json_each("r"."attributes", '$."emails"') as "r_e1" where ("r_e1"."type" = 'object' and ` +
        `(scimkit_lower(json_extract("r_e1"."value", '$."type"')) = ? and scimkit_lower(json_extract("r_e1"."value", '$."value"')) glob ?)))`,
      parameters: ["work", "*x*"],
    });
  });

  it("negates a condition that may be NULL with IS NOT TRUE, so `ne` holds where the attribute is absent", () => {
    expect(compiled("sqlite", 'title ne "T"')).toEqual({
      where: `(scimkit_lower(json_extract("r"."attributes", '$."title"')) = ?) is not true`,
      parameters: ["t"],
    });
    expect(compiled("sqlite", 'not (emails.type eq "work")').where).toMatch(/^not \(exists \(/);
  });

  it("binds booleans as 1/0 and reads meta from columns", () => {
    expect(compiled("sqlite", "active eq true")).toEqual({ where: `json_extract("r"."attributes", '$."active"') = ?`, parameters: [1] });
    expect(compiled("sqlite", 'meta.version eq "W/\\"3\\""')).toEqual({
      where: `('W/"' || "r"."version" || '"') = ?`,
      parameters: ['W/"3"'],
    });
    expect(compiled("sqlite", 'meta.lastModified gt "2020-01-01T01:00:00+01:00"')).toEqual({
      where: '"r"."last_modified" > ?',
      parameters: ["2020-01-01T00:00:00.000Z"],
    });
  });

  it("folds what no row can satisfy or miss into constants", () => {
    expect(compiled("sqlite", 'members.display eq "x"', groups)).toEqual({ where: "false", parameters: [] });
    expect(compiled("sqlite", "meta pr")).toEqual({ where: "true", parameters: [] });
    expect(compiled("sqlite", 'meta.location pr or id eq "a"')).toEqual({ where: '"r"."id" = ?', parameters: ["a"] });
  });

  it("members read scimkit_members of the same organization", () => {
    expect(compiled("sqlite", 'members[type eq "Group" and value eq "g1"]', groups)).toEqual({
      where:
        '"r"."id" in (select "r_m1"."group_id" from "scimkit_members" as "r_m1" where "r_m1"."org_id" = "r"."org_id" and ' +
        '(scimkit_lower("r_m1"."member_type") = ? and scimkit_lower("r_m1"."member_id") = ?))',
      parameters: ["group", "g1"],
    });
  });
});

describe("compileFilterSql: PostgreSQL", () => {
  it("userName eq looks the unique key up with a correlated EXISTS (a semi-join from the primary key)", () => {
    expect(compiled("postgres", 'userName eq "Bob"')).toEqual({
      where:
        'exists (select 1 from "scimkit_unique_keys" as "r_uk1" where "r_uk1"."org_id" = "r"."org_id" and ' +
        '"r_uk1"."resource_type" = "r"."resource_type" and "r_uk1"."attribute" = $1 and "r_uk1"."value" = $2 and "r_uk1"."id" = "r"."id")',
      parameters: ["userName", "bob"],
    });
  });

  it("externalId eq and id eq compare their indexed columns", () => {
    expect(compiled("postgres", 'externalId eq "E-1"')).toEqual({ where: '"r"."external_id" = $1', parameters: ["E-1"] });
    expect(compiled("postgres", 'id eq "A-1"')).toEqual({ where: '"r"."id" = $1', parameters: ["A-1"] });
  });

  it('co/sw/ew use LIKE under COLLATE "C" with %, _ and the escape character escaped', () => {
    expect(compiled("postgres", 'title co "50%_*?\\\\"')).toEqual({
      where: `((lower(("r"."attributes" ->> 'title') collate "und-x-icu")) collate "C" like $1 escape '\\')`,
      parameters: ["%50\\%\\_*?\\\\%"],
    });
    expect(compiled("postgres", 'externalId sw "a_"')).toEqual({
      where: `(("r"."external_id") collate "C" like $1 escape '\\')`,
      parameters: ["a\\_%"],
    });
  });

  it("iterates arrays with a lax JSON path, so one element satisfies the whole bracket", () => {
    expect(compiled("postgres", 'emails[type eq "work" and primary eq true]')).toEqual({
      where:
        `exists (select 1 from jsonb_path_query("r"."attributes" -> 'emails', 'lax $[*]') with ordinality as "r_e1"(value, position) ` +
        `where (jsonb_typeof("r_e1"."value") = 'object' and (lower(("r_e1"."value" ->> 'type') collate "und-x-icu") = $1 and ` +
        `(case when jsonb_typeof("r_e1"."value" -> 'primary') = 'boolean' then ("r_e1"."value" -> 'primary')::boolean end) = $2)))`,
      parameters: ["work", true],
    });
  });

  it("orders strings by code point and guards numeric casts", () => {
    expect(compiled("postgres", 'id gt "a"')).toEqual({ where: `(("r"."id") collate "C") > $1`, parameters: ["a"] });
    expect(compiled("postgres", `${ENTERPRISE}:employeeNumber lt "9"`).where).toContain(`collate "C") < $1`);
  });

  it("can fold case with the database's own collation", () => {
    const dialect = createPostgresFilterDialect({ caseFoldCollation: null });
    expect(compiled("postgres", 'title eq "T"', users, dialect)).toEqual({
      where: `lower("r"."attributes" ->> 'title') = $1`,
      parameters: ["t"],
    });
  });
});

describe("compileFilterSql: the e-mail search prefilter (PostgreSQL's emails_search)", () => {
  const prefilter = `(("r"."emails_search") collate "C" like $1 escape '\\')`;

  it("ANDs a LIKE on the search column, with the needle folded and bound, before the exact test", () => {
    const { where, parameters } = compiled("postgres", 'emails.value co "@Dept7."');
    expect(where).toBe(
      `(${prefilter} and exists (select 1 from jsonb_path_query("r"."attributes" -> 'emails', 'lax $[*]') with ordinality as "r_e1"(value, position) ` +
        `where ((lower(("r_e1"."value" ->> 'value') collate "und-x-icu")) collate "C" like $2 escape '\\')))`,
    );
    expect(parameters).toEqual(["%@dept7.%", "%@dept7.%"]);
  });

  it("reads a needle inside emails[…], and `emails co` (the value sub-attribute) too", () => {
    const bracket = compiled("postgres", 'emails[type eq "work" and value co "@dept7."]');
    expect(bracket.where.startsWith(`(${prefilter} and exists (`)).toBe(true);
    expect(bracket.parameters).toEqual(["%@dept7.%", "work", "%@dept7.%"]);
    expect(compiled("postgres", 'emails[type eq "work"].value ew "@dept7.example.com"').parameters[0]).toBe('%@dept7.example.com"%');
    expect(compiled("postgres", 'emails co "x"').parameters[0]).toBe("%x%");
  });

  it("anchors sw, ew and eq at the quotes around each value, and escapes LIKE's characters", () => {
    expect(compiled("postgres", 'emails.value sw "Ab"').parameters[0]).toBe('%"ab%');
    expect(compiled("postgres", 'emails.value ew "Ab"').parameters[0]).toBe('%ab"%');
    expect(compiled("postgres", 'emails.value eq "Ab"').parameters[0]).toBe('%"ab"%');
    expect(compiled("postgres", 'emails.value co "5%_"').parameters[0]).toBe("%5\\%\\_%");
  });

  it("combines: `and` tests every needle, `or` one of them, and only when every branch has one", () => {
    expect(compiled("postgres", 'emails co "a1" and emails co "b2"').parameters.slice(0, 2)).toEqual(["%a1%", "%b2%"]);
    expect(compiled("postgres", 'emails co "a1" or emails co "b2"').where).toMatch(
      /^\(\(\(\("r"\."emails_search"\) collate "C" like \$1 escape '\\'\) or \(\("r"\."emails_search"\)/,
    );
    expect(compiled("postgres", 'emails co "a1" or title eq "b"').where).not.toContain("emails_search");
    expect(compiled("postgres", 'userName eq "u" and emails[type eq "work" and value sw "x"]').where).toContain("emails_search");
  });

  it("gives no prefilter where the column could miss a match or says nothing", () => {
    const none = [
      // JSON escapes these in the column; σ/ς fold by context, which escaping changes.
      'emails.value co "a\\"b"',
      'emails.value co "a\\\\b"',
      'emails.value co "a\\nb"',
      'emails.value co "σ"',
      'emails.value co "Σ"',
      'emails.value co "ς"',
      'emails.value co ""',
      // Negations, orderings and other attributes.
      'emails.value ne "x"',
      'not (emails.value co "x")',
      'emails.value gt "x"',
      "emails.value pr",
      'emails.type eq "work"',
      'emails.display co "x"',
      'ims.value co "x"',
      'title co "x"',
      'emails[type eq "work" or value co "x"]',
    ];
    for (const text of none) expect(compiled("postgres", text).where, text).not.toContain("emails_search");
  });

  it("is PostgreSQL's with its ICU folding only: not SQLite's default, MySQL, another collation, or emailsSearch: false", () => {
    const text = 'emails[type eq "work" and value co "@dept7."]';
    expect(compiled("sqlite", text).where).not.toContain("emails_search");
    expect(compiled("mysql", text).where).not.toContain("emails_search");
    expect(compiled("postgres", text, users, createPostgresFilterDialect({ caseFoldCollation: null })).where).not.toContain(
      "emails_search",
    );
    expect(compiled("postgres", text, users, createPostgresFilterDialect({ emailsSearch: false })).where).not.toContain("emails_search");
  });
});

describe("compileFilterSql: the e-mail search prefilter (SQLite's scimkit_emails_search)", () => {
  const searching = createSqliteFilterDialect({ emailsSearch: true });
  const sqlite = (text: string): Compiled => compiled("sqlite", text, users, searching);
  const prefilter =
    '+"r"."rowid" in (select "r_search_row"."rowid" from "scimkit_emails_search_keys" as "r_search_key" join "scimkit_resources" as "r_search_row" on "r_search_row"."org_id" = "r_search_key"."org_id" and "r_search_row"."id" = "r_search_key"."id" where "r_search_key"."search_id" in (select rowid from "scimkit_emails_search" where "scimkit_emails_search" match ?))';

  it("ANDs a probe of the FTS table, the needle folded and bound as one phrase, before the exact test", () => {
    const { where, parameters } = sqlite('emails.value co "@Dept7."');
    expect(where).toBe(
      `(${prefilter} and exists (select 1 from json_each("r"."attributes", '$."emails"') as "r_e1" where scimkit_lower(json_extract("r_e1"."value", '$."value"')) glob ?))`,
    );
    expect(parameters).toEqual(['"@dept7."', "*@dept7.*"]);
    expect(sqlite('emails[type eq "work" and value co "@dept7."]').where.startsWith(`(${prefilter} and exists (`)).toBe(true);
  });

  it("anchors sw, ew and eq at the quotes around each value, doubled inside the phrase", () => {
    expect(sqlite('emails.value sw "Ab"').parameters[0]).toBe('"""ab"');
    expect(sqlite('emails.value ew "Ab"').parameters[0]).toBe('"ab"""');
    expect(sqlite('emails.value eq "Ab"').parameters[0]).toBe('"""ab"""');
    // Pattern and query-syntax characters are literal in a phrase: nothing to escape.
    expect(sqlite('emails.value co "5%_*?[x] AND y"').parameters[0]).toBe('"5%_*?[x] and y"');
  });

  it("gives no prefilter where the search text is shorter than three characters (a trigram index finds nothing then)", () => {
    // Counted in code points after folding: İ folds to two.
    for (const text of [
      'emails.value co "ab"',
      'emails.value sw "a"',
      'emails.value ew "a"',
      'emails.value co "é"',
      'emails.value co "İ"',
    ]) {
      expect(sqlite(text).where, text).not.toContain("scimkit_emails_search");
    }
    for (const text of [
      'emails.value co "abc"',
      'emails.value sw "ab"',
      'emails.value ew "ab"',
      'emails.value eq "a"',
      'emails.value ew "İ"',
    ]) {
      expect(sqlite(text).where, text).toContain("scimkit_emails_search");
    }
  });

  it("gives none where the search text could miss a match or says nothing, as on PostgreSQL", () => {
    for (const text of [
      'emails.value co "a\\"bc"',
      'emails.value co "σοφ"',
      'emails.value ne "abc"',
      'not (emails.value co "abc")',
      'emails.type eq "work"',
      'emails[type eq "work" or value co "abc"]',
    ]) {
      expect(sqlite(text).where, text).not.toContain("scimkit_emails_search");
    }
  });
});

describe("compileFilterSql: MySQL (SQL text only)", () => {
  it("is the same compiler with MySQL's spelling", () => {
    expect(compiled("mysql", 'externalId co "5%|"')).toEqual({
      where: "(`r`.`external_id` collate utf8mb4_bin like ? escape '|')",
      parameters: ["%5|%||%"],
    });
    expect(compiled("mysql", 'meta.version eq "W/\\"3\\""')).toEqual({
      where: "concat('W/\"', `r`.`version`, '\"') = ?",
      parameters: ['W/"3"'],
    });
    expect(compiled("mysql", "emails pr").where).toContain("json_table(json_extract(`r`.`attributes`, '$.\"emails\"'), '$[*]'");
  });
});

describe("orderBySql and keysetAfterSql", () => {
  const sort = (text: string, order: SortSpec["order"]): SortSpec => {
    const resolution = users.resolvePath(text);
    if (!resolution.ok) throw new Error(resolution.reason);
    return { path: resolution.path, order };
  };

  function page(name: keyof typeof builders, spec: SortSpec | undefined, after: SortPosition): Compiled {
    const context = { dialect: dialects[name], resource: "r" };
    let query = builders[name]
      .selectFrom("scimkit_resources as r")
      .select("r.id")
      .where(keysetAfterSql(spec, after, context));
    for (const item of orderBySql(spec, context)) query = query.orderBy(item);
    return strip(query.compile());
  }

  it("without a sort orders and pages by id alone", () => {
    expect(page("sqlite", undefined, { key: null, id: "x" })).toEqual({ where: '"r"."id" > ? order by "r"."id" asc', parameters: ["x"] });
    expect(page("postgres", undefined, { key: null, id: "x" })).toEqual({
      where: `(("r"."id") collate "C") > $1 order by (("r"."id") collate "C") asc`,
      parameters: ["x"],
    });
  });

  it("ascending: NULLs last, and after a present key come greater keys, NULLs and ties with greater ids", () => {
    expect(page("sqlite", sort("externalId", "ascending"), { key: "k", id: "x" })).toEqual({
      where:
        '("r"."external_id" > ? or "r"."external_id" is null or ("r"."external_id" = ? and "r"."id" > ?)) order by "r"."external_id" asc nulls last, "r"."id" asc',
      parameters: ["k", "k", "x"],
    });
  });

  it("descending: NULLs first, and after a NULL key come later NULLs and every present key", () => {
    expect(page("sqlite", sort("title", "descending"), { key: null, id: "x" })).toEqual({
      where:
        `(scimkit_lower(json_extract("r"."attributes", '$."title"')) is not null or "r"."id" > ?) ` +
        `order by scimkit_lower(json_extract("r"."attributes", '$."title"')) desc nulls first, "r"."id" asc`,
      parameters: ["x"],
    });
  });

  it("a position whose key has another type than the attribute's orders by type, as compareSortKeys does", () => {
    // A number sorts before every string: ascending, every row comes after it.
    expect(page("sqlite", sort("externalId", "ascending"), { key: 3, id: "x" }).where).toBe(
      'true order by "r"."external_id" asc nulls last, "r"."id" asc',
    );
  });

  it("a multi-valued attribute sorts by its primary element, else its first", () => {
    const [key] = orderBySql(sort("emails.value", "ascending"), { dialect: sqliteFilterDialect, resource: "r" });
    const text = builders.sqlite.selectFrom("scimkit_resources as r").select("r.id").orderBy(key!).compile().sql;
    expect(text).toContain(
      `(select scimkit_lower(json_extract("r_s1"."value", '$."value"')) from json_each("r"."attributes", '$."emails"') as "r_s1" ` +
        `order by case when json_extract("r_s1"."value", '$."primary"') is true then 0 else 1 end, "r_s1"."key" limit 1) asc nulls last`,
    );
  });

  it("MySQL spells NULLS LAST as an `is null` key", () => {
    expect(page("mysql", sort("externalId", "ascending"), { key: "k", id: "x" }).where).toContain(
      "order by ((`r`.`external_id` collate utf8mb4_bin) is null) asc, (`r`.`external_id` collate utf8mb4_bin) asc, (`r`.`id` collate utf8mb4_bin) asc",
    );
  });
});
