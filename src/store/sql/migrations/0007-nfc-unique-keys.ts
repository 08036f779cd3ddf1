/**
 * Version 7: unique keys in Unicode NFC. Until now `uniqueKeysOf` lower-cased a `userName` or
 * group `displayName` but kept its normalization form, so a user created as "Ångström" in NFD
 * ("A" + U+030A) holds a key that the NFC form, which the core now looks up and claims
 * (`uniqueValue`), never meets: `userName eq "Ångström"` would not find that user, and a second
 * user of the NFC name could be created beside it. This migration rewrites every key that is not
 * NFC to its NFC form, so stored keys and new ones are made alike.
 *
 * Two resources whose keys differ only in normalization form — created before this version,
 * which did not see them as one name — cannot both hold the NFC key. The one that holds it keeps
 * it and the other keeps its old key: no data is dropped, and renaming either resource (or
 * deleting one) resolves it. Keys of ASCII text, nearly all of them, are NFC already and are
 * left alone; the scan reads the table in pages of primary-key order, so it never holds more
 * than one page.
 */
import type { Kysely } from "kysely";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { Migration } from "./migration.js";

const PAGE = 1000;
// Text with only code points below U+0300 (combining marks start there) is NFC whatever it holds.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range starts at U+0000 because every character below U+0300 is its own NFC form.
const CANNOT_CHANGE = /^[\u0000-\u02ff]*$/;

interface KeyRow {
  readonly org_id: string;
  readonly resource_type: string;
  readonly attribute: string;
  readonly value: string;
  readonly id: string;
}

/** The rows after `after` in primary-key order, at most one page. */
function page(trx: Kysely<SqlStoreDatabase>, after: KeyRow | undefined): Promise<KeyRow[]> {
  let query = trx.selectFrom("scimkit_unique_keys").select(["org_id", "resource_type", "attribute", "value", "id"]);
  if (after) {
    query = query.where((eb) =>
      eb(
        eb.refTuple("org_id", "resource_type", "attribute", "value"),
        ">",
        eb.tuple(after.org_id, after.resource_type, after.attribute, after.value),
      ),
    );
  }
  return query.orderBy("org_id").orderBy("resource_type").orderBy("attribute").orderBy("value").limit(PAGE).execute();
}

/** Rewrites the key `row` to `value` unless another row holds that key already. */
async function normalizeKey(trx: Kysely<SqlStoreDatabase>, row: KeyRow, value: string): Promise<void> {
  const holder = await trx
    .selectFrom("scimkit_unique_keys")
    .select("id")
    .where("org_id", "=", row.org_id)
    .where("resource_type", "=", row.resource_type)
    .where("attribute", "=", row.attribute)
    .where("value", "=", value)
    .executeTakeFirst();
  if (holder) return;
  await trx
    .updateTable("scimkit_unique_keys")
    .set({ value })
    .where("org_id", "=", row.org_id)
    .where("resource_type", "=", row.resource_type)
    .where("attribute", "=", row.attribute)
    .where("value", "=", row.value)
    .execute();
}

/** Rewrites the unique keys that are not NFC. */
export const nfcUniqueKeys: Migration = {
  version: 7,
  name: "nfc-unique-keys",
  async up(trx) {
    let after: KeyRow | undefined;
    for (;;) {
      const rows = await page(trx, after);
      for (const row of rows) {
        if (CANNOT_CHANGE.test(row.value)) continue;
        const value = row.value.normalize("NFC");
        if (value !== row.value) await normalizeKey(trx, row, value);
      }
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1];
    }
  },
};
