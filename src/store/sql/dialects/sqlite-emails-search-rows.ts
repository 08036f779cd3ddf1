/**
 * The rows of SQLite's e-mail search (`SQLITE_EMAILS_SEARCH`, migration 8), written by the store
 * in the transaction of each write, not by triggers: the schema then needs no function of ours and
 * nothing newer than the SQLite Debian stable ships (3.40), so any SQLite tool opens, checks,
 * dumps and writes the file (issue 14, item 6).
 *
 * Two tables: `scimkit_emails_search_keys` gives each resource with e-mails an INTEGER PRIMARY KEY
 * (`search_id`), and the FTS5 trigram table `scimkit_emails_search` holds that resource's search
 * text under the same rowid. Keyed by that column, not by `scimkit_resources`' rowid, which
 * `.dump` renumbers: a dump restores INTEGER PRIMARY KEYs and FTS5's shadow tables as they were,
 * so a restored copy still matches.
 */
import { sql, type Kysely } from "kysely";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import { SQLITE_EMAILS_SEARCH } from "../filter/sqlite-filter-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { runDeferrable } from "../deferred-statement.js";
import type { ResourceIndexChange } from "./resource-index-change.js";

const { table, column, keys } = SQLITE_EMAILS_SEARCH;

/**
 * The values `emails.value` reads, as SQLite's `json_each` iterates `emails`: the elements of an
 * array, or the member values of an object.
 */
function emailElements(attributes: ScimObject): readonly unknown[] {
  const emails = attributes[SQLITE_EMAILS_SEARCH.attribute];
  if (Array.isArray(emails)) return emails;
  return typeof emails === "object" && emails !== null ? Object.values(emails) : [];
}

/**
 * The search text of a resource, as `FilterDialect.searchContains` describes it, or undefined
 * when it has no e-mail objects (it then has no row): the `value` of each object element in array
 * order, between brackets and separated by commas. A string stands between double quotes, folded
 * with `toLowerCase` — the folding of `scimkit_lower`, which the exact condition applies to the
 * same value, and of the needle (`searchPrefilter`) — and unescaped, so that whatever a value
 * contains, `"value"` is in the text as the value folds: the prefilter looks for `"needle"`,
 * `"needle`, `needle"` or `needle`, and never for a needle holding `"` or `\`. Anything else is
 * its JSON. Folded per value, not as a whole: Σ folds by what follows it.
 *
 * @example emailsSearchText({ emails: [{ value: "Ann@X.io" }, { type: "home" }] }) === '["ann@x.io",null]'
 */
export function emailsSearchText(attributes: ScimObject): string | undefined {
  const objects = emailElements(attributes).filter(
    (element): element is ScimObject => typeof element === "object" && element !== null && !Array.isArray(element),
  );
  if (objects.length === 0) return undefined;
  const values = objects.map((element) => {
    const value = element[SQLITE_EMAILS_SEARCH.subAttribute];
    return typeof value === "string" ? `"${value.toLowerCase()}"` : (JSON.stringify(value) ?? "null").toLowerCase();
  });
  return `[${values.join(",")}]`;
}

const searchIdOf = (orgId: string, id: string) => sql`select search_id from ${sql.table(keys)} where org_id = ${orgId} and id = ${id}`;

/** Deletes the search rows of one resource. */
async function deleteOne(trx: Kysely<SqlStoreDatabase>, orgId: string, id: string): Promise<void> {
  await runDeferrable(trx, sql`delete from ${sql.table(table)} where rowid = (${searchIdOf(orgId, id)})`.compile(trx));
  await runDeferrable(trx, sql`delete from ${sql.table(keys)} where org_id = ${orgId} and id = ${id}`.compile(trx));
}

/**
 * Gives the resource its text: its key row (kept if it has one), then its FTS row, replaced. Neither
 * statement's result is read, so both go to the writer with the rest of the write.
 */
async function writeOne(trx: Kysely<SqlStoreDatabase>, orgId: string, id: string, text: string): Promise<void> {
  await runDeferrable(
    trx,
    sql`insert into ${sql.table(keys)} (org_id, id) values (${orgId}, ${id}) on conflict (org_id, id) do nothing`.compile(trx),
  );
  // FTS5 honours OR REPLACE on the rowid: the old text's entries go before the new ones come.
  const replace = sql`insert or replace into ${sql.table(table)} (rowid, ${sql.id(column)}) values ((${searchIdOf(orgId, id)}), ${text})`;
  await runDeferrable(trx, replace.compile(trx));
}

/**
 * `SqlDialect.indexResources` where the e-mail search tables exist: keeps them equal to the
 * resources' e-mails, inside the write's transaction `trx`. A write whose e-mails fold to the same
 * text as before (`PATCH active`) costs no statement.
 *
 * @example await indexSqliteEmailsSearch(trx, { kind: "write", orgId, id, attributes })
 */
export async function indexSqliteEmailsSearch(trx: Kysely<SqlStoreDatabase>, change: ResourceIndexChange): Promise<void> {
  switch (change.kind) {
    case "write": {
      const text = emailsSearchText(change.attributes);
      if (change.previous !== undefined) {
        const before = emailsSearchText(change.previous);
        if (before === text) return;
        if (text === undefined) return deleteOne(trx, change.orgId, change.id);
      }
      if (text !== undefined) await writeOne(trx, change.orgId, change.id, text);
      return;
    }
    case "delete":
      return deleteOne(trx, change.orgId, change.id);
    case "deleteOrganization":
      await sql`delete from ${sql.table(table)} where rowid in (select search_id from ${sql.table(keys)} where org_id = ${change.orgId})`.execute(
        trx,
      );
      await sql`delete from ${sql.table(keys)} where org_id = ${change.orgId}`.execute(trx);
      return;
  }
}

/** Rows the fill reads and writes at a time: few statements, none holding much. */
const PAGE = 500;

interface KeyedText {
  readonly org_id: string;
  readonly id: string;
  readonly text: string;
}

/**
 * Fills the (empty) search tables from every row of `scimkit_resources`, in pages of primary-key
 * order, inside the transaction `trx`. The text is worked out here, in JavaScript, as a write
 * works it out (`emailsSearchText`).
 */
export async function fillSqliteEmailsSearch(trx: Kysely<SqlStoreDatabase>): Promise<void> {
  let after: { readonly org_id: string; readonly id: string } | undefined;
  for (;;) {
    let query = trx.selectFrom("scimkit_resources").select(["org_id", "id", "attributes"]);
    if (after) {
      const last = after;
      query = query.where((eb) => eb(eb.refTuple("org_id", "id"), ">", eb.tuple(last.org_id, last.id)));
    }
    const rows = await query.orderBy("org_id").orderBy("id").limit(PAGE).execute();
    const texts: KeyedText[] = [];
    for (const row of rows) {
      const text = emailsSearchText(JSON.parse(String(row.attributes)) as ScimObject);
      if (text !== undefined) texts.push({ org_id: row.org_id, id: row.id, text });
    }
    if (texts.length > 0) {
      const made = await sql<{ search_id: number; org_id: string; id: string }>`insert into ${sql.table(keys)} (org_id, id)
        values ${sql.join(texts.map((row) => sql`(${row.org_id}, ${row.id})`))} returning search_id, org_id, id`.execute(trx);
      const idOf = new Map(made.rows.map((row) => [`${row.org_id}\u0000${row.id}`, row.search_id]));
      await sql`insert into ${sql.table(table)} (rowid, ${sql.id(column)})
        values ${sql.join(texts.map((row) => sql`(${idOf.get(`${row.org_id}\u0000${row.id}`)}, ${row.text})`))}`.execute(trx);
    }
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < PAGE) return;
    after = { org_id: last.org_id, id: last.id };
  }
}
