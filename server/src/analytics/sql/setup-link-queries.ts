/**
 * Setup links in SQL (issue 31): `scimkit_setup_links`, found by the digest of their code or of
 * their session through its unique index. The exchange of a code is one conditional update, so of
 * two concurrent exchanges exactly one changes the row.
 */
import type { Kysely } from "kysely";
import type { SetupIdentityProvider, SetupLink, SetupLinkStore } from "../setup-link-store.js";
import type { AnalyticsDatabase, SetupLinksTable } from "./analytics-tables.js";

function linkOf(row: SetupLinksTable): SetupLink {
  return {
    id: row.id,
    orgId: row.org_id,
    ...(row.identity_provider === null ? {} : { identityProvider: row.identity_provider as SetupIdentityProvider }),
    ...(row.created_by === null ? {} : { createdBy: row.created_by }),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.used_at === null ? {} : { usedAt: row.used_at }),
    ...(row.revoked_at === null ? {} : { revokedAt: row.revoked_at }),
    ...(row.token_id === null ? {} : { tokenId: row.token_id }),
  };
}

/** The `SetupLinkStore` members of the SQL analytics store over `db`. */
export function setupLinkQueries(db: Kysely<AnalyticsDatabase>): SetupLinkStore {
  const byId = (id: string) => db.selectFrom("scimkit_setup_links").selectAll().where("id", "=", id);
  return {
    async createSetupLink(link, codeHash) {
      await db
        .insertInto("scimkit_setup_links")
        .values({
          org_id: link.orgId,
          id: link.id,
          code_hash: codeHash,
          session_hash: null,
          identity_provider: link.identityProvider ?? null,
          created_by: link.createdBy ?? null,
          created_at: link.createdAt,
          expires_at: link.expiresAt,
          used_at: null,
          revoked_at: null,
          token_id: null,
        })
        .execute();
    },
    async listSetupLinks(orgId) {
      const rows = await db
        .selectFrom("scimkit_setup_links")
        .selectAll()
        .where("org_id", "=", orgId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      return rows.map(linkOf);
    },
    async getSetupLink(orgId, id) {
      const row = await byId(id).where("org_id", "=", orgId).executeTakeFirst();
      return row === undefined ? undefined : linkOf(row);
    },
    async revokeSetupLink(orgId, id, at) {
      await db
        .updateTable("scimkit_setup_links")
        .set({ revoked_at: at })
        .where("org_id", "=", orgId)
        .where("id", "=", id)
        .where("revoked_at", "is", null)
        .execute();
      const row = await byId(id).where("org_id", "=", orgId).executeTakeFirst();
      return row === undefined ? undefined : linkOf(row);
    },
    async useSetupLink(codeHash, at, sessionHash) {
      const used = await db
        .updateTable("scimkit_setup_links")
        .set({ used_at: at, session_hash: sessionHash })
        .where("code_hash", "=", codeHash)
        .where("used_at", "is", null)
        .where("revoked_at", "is", null)
        .where("expires_at", ">", at)
        .executeTakeFirst();
      const row = await db.selectFrom("scimkit_setup_links").selectAll().where("code_hash", "=", codeHash).executeTakeFirst();
      if (row === undefined) return undefined;
      if (Number(used.numUpdatedRows) === 1 && row.session_hash === sessionHash) return linkOf(row);
      if (row.revoked_at !== null) return "revoked";
      if (row.used_at !== null) return "used";
      return "expired";
    },
    async findSetupSession(sessionHash, at) {
      const row = await db
        .selectFrom("scimkit_setup_links")
        .selectAll()
        .where("session_hash", "=", sessionHash)
        .where("revoked_at", "is", null)
        .where("expires_at", ">", at)
        .executeTakeFirst();
      return row === undefined ? undefined : linkOf(row);
    },
    async setSetupIdentityProvider(id, provider) {
      await db.updateTable("scimkit_setup_links").set({ identity_provider: provider }).where("id", "=", id).execute();
    },
    async recordSetupToken(id, tokenId) {
      const result = await db
        .updateTable("scimkit_setup_links")
        .set({ token_id: tokenId })
        .where("id", "=", id)
        .where("token_id", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
