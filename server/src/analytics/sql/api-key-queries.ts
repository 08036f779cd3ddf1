/**
 * The analytics API keys in SQL (`scimkit_api_keys`): secrets as SHA-256 digests only, looked up
 * by the unique index on the digest; a rotation is one transaction.
 */
import type { Kysely, Selectable } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import type { AdminUserStore, StoredApiKey } from "../analytics-store.js";
import type { AnalyticsDatabase, ApiKeysTable } from "./analytics-tables.js";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";

function apiKeyOf(row: Selectable<ApiKeysTable>): StoredApiKey {
  return {
    id: row.id,
    subject:
      row.subject_kind === "admin" && row.admin_user_id !== null ? { kind: "admin", adminUserId: row.admin_user_id } : { kind: "operator" },
    hash: row.hash,
    createdAt: row.created_at,
  };
}

/** Stores `key`; the unique digest index rejects a digest that exists. */
export async function insertKey(on: Kysely<AnalyticsDatabase>, key: StoredApiKey): Promise<void> {
  await on
    .insertInto("scimkit_api_keys")
    .values({
      id: key.id,
      hash: key.hash,
      subject_kind: key.subject.kind,
      admin_user_id: key.subject.kind === "admin" ? key.subject.adminUserId : null,
      created_at: key.createdAt,
    })
    .execute();
}

/** The key members of `AdminUserStore` over `db`. */
export function apiKeyQueries(
  db: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
): Pick<AdminUserStore, "insertApiKey" | "replaceApiKey" | "replaceOperatorKeys" | "findApiKeyByHash" | "hasOperatorKey"> {
  return {
    async insertApiKey(key) {
      await insertKey(db, key);
    },

    replaceApiKey(id, key) {
      // One transaction: the old key is gone exactly when the new one exists.
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const deleted = await trx.deleteFrom("scimkit_api_keys").where("id", "=", id).executeTakeFirst();
        if (deleted.numDeletedRows === 0n) return false;
        await insertKey(trx, key);
        return true;
      });
    },

    replaceOperatorKeys(key) {
      if (key.subject.kind !== "operator") return Promise.reject(new TypeError("replaceOperatorKeys: the key is not an operator key"));
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const deleted = await trx.deleteFrom("scimkit_api_keys").where("subject_kind", "=", "operator").executeTakeFirst();
        await insertKey(trx, key);
        return Number(deleted.numDeletedRows);
      });
    },

    async findApiKeyByHash(hash) {
      // The unique index on the digest answers this with one probe.
      const row = await db.selectFrom("scimkit_api_keys").selectAll().where("hash", "=", hash).executeTakeFirst();
      return row ? apiKeyOf(row) : undefined;
    },

    async hasOperatorKey() {
      const row = await db.selectFrom("scimkit_api_keys").select("id").where("subject_kind", "=", "operator").limit(1).executeTakeFirst();
      return row !== undefined;
    },
  };
}
