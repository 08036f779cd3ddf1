/**
 * The hashed token store's persistence in SQL (spec §5, architecture §3 TokenVerifier): a
 * `TokenRepository` over `scimkit_tokens`, which holds SHA-256 digests only, never a token.
 * Every change is one statement or one transaction, visible to every process at once, so a
 * rotation or revocation is effective on the very next verify anywhere.
 */
import type { Kysely, Selectable } from "kysely";
import type { StoredToken, TokenRepository } from "../../auth/token-repository.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import type { SqlStoreDatabase, TokensTable } from "./sql-tables.js";

function storedTokenOf(row: Selectable<TokensTable>): StoredToken {
  return {
    id: row.id,
    orgId: row.org_id,
    prefix: row.prefix,
    createdAt: row.created_at,
    hash: row.hash,
    ...(row.label === null ? {} : { label: row.label }),
    ...(row.rotated_at === null ? {} : { rotatedAt: row.rotated_at }),
    ...(row.last_used_at === null ? {} : { lastUsedAt: row.last_used_at }),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    ...(row.previous_hash === null || row.previous_hash_valid_until === null
      ? {}
      : { previousHash: row.previous_hash, previousSecretValidUntil: row.previous_hash_valid_until }),
  };
}

/**
 * A `TokenRepository` on the `scimkit_tokens` table of `db` (created by the SQL store's
 * migrations). `sqlStore` wires one into `store.tokens`; use this directly to keep tokens in a
 * database of your own.
 *
 * @example
 * const tokens = createTokenStore({ repository: sqlTokenRepository(db, postgresDialect) });
 */
export function sqlTokenRepository(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect): TokenRepository {
  const tokens = () => db.selectFrom("scimkit_tokens").selectAll();

  return {
    async findByHash(orgId, hash) {
      // The indexes on the two digests answer this; the organization scopes it (401 for a foreign token).
      const row = await tokens()
        .where((eb) => eb.or([eb("hash", "=", hash), eb("previous_hash", "=", hash)]))
        .where("org_id", "=", orgId)
        .executeTakeFirst();
      return row ? storedTokenOf(row) : undefined;
    },

    async listByOrg(orgId) {
      const rows = await tokens().where("org_id", "=", orgId).orderBy("created_at").orderBy("id").execute();
      return rows.map(storedTokenOf);
    },

    async insert(token) {
      // The primary key (org_id, id) and the unique digest reject duplicates, as the contract asks.
      await db
        .insertInto("scimkit_tokens")
        .values({
          id: token.id,
          org_id: token.orgId,
          hash: token.hash,
          prefix: token.prefix,
          label: token.label ?? null,
          created_at: token.createdAt,
          rotated_at: token.rotatedAt ?? null,
          last_used_at: token.lastUsedAt ?? null,
          expires_at: token.expiresAt ?? null,
          previous_hash: token.previousHash ?? null,
          previous_hash_valid_until: token.previousHash === undefined ? null : (token.previousSecretValidUntil ?? null),
        })
        .execute();
    },

    replaceHash(orgId, id, replacement) {
      return dialect.writeTransaction(db, async (trx) => {
        const result = await trx
          .updateTable("scimkit_tokens")
          .set((eb) => ({
            hash: replacement.hash,
            prefix: replacement.prefix,
            rotated_at: replacement.rotatedAt,
            last_used_at: null,
            expires_at: replacement.expiresAt ?? null,
            // Right-hand sides read the row as it was, so `previous_hash = hash` keeps the old digest.
            previous_hash: replacement.previousSecretValidUntil === undefined ? null : eb.ref("hash"),
            previous_hash_valid_until: replacement.previousSecretValidUntil ?? null,
          }))
          .where("org_id", "=", orgId)
          .where("id", "=", id)
          .executeTakeFirst();
        if (result.numUpdatedRows === 0n) return undefined;
        const row = await trx
          .selectFrom("scimkit_tokens")
          .selectAll()
          .where("org_id", "=", orgId)
          .where("id", "=", id)
          .executeTakeFirstOrThrow();
        return storedTokenOf(row);
      });
    },

    async dropPreviousHash(orgId, id) {
      await db
        .updateTable("scimkit_tokens")
        .set({ previous_hash: null, previous_hash_valid_until: null })
        .where("org_id", "=", orgId)
        .where("id", "=", id)
        .execute();
      const row = await db.selectFrom("scimkit_tokens").selectAll().where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
      return row === undefined ? undefined : storedTokenOf(row);
    },

    async markUsed(orgId, hash, lastUsedAt) {
      // Keyed by digest: a use of the old secret racing a rotation never marks the new one.
      await db
        .updateTable("scimkit_tokens")
        .set({ last_used_at: lastUsedAt })
        .where("hash", "=", hash)
        .where("org_id", "=", orgId)
        .execute();
    },

    async delete(orgId, id) {
      const result = await db.deleteFrom("scimkit_tokens").where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async deleteByOrg(orgId) {
      const result = await db.deleteFrom("scimkit_tokens").where("org_id", "=", orgId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
