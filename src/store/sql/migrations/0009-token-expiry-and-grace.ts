/**
 * Version 9: token expiry and rotation grace (issue 14). `scimkit_tokens` gains `expires_at`
 * (checked on every verify), and `previous_hash` with `previous_hash_valid_until`: the digest a
 * rotation with a grace period replaced, which verifies until then. Verification looks a token
 * up by either digest, so the previous one gets an index of its own; existing rows keep working
 * unchanged (no expiry, no previous digest).
 */
import type { Migration } from "./migration.js";

/** Adds the expiry and previous-digest columns to `scimkit_tokens`. */
export const tokenExpiryAndGrace: Migration = {
  version: 9,
  name: "token-expiry-and-grace",
  async up(trx, { columnTypes: type }) {
    // One column per statement: SQLite's ALTER TABLE adds one at a time.
    await trx.schema.alterTable("scimkit_tokens").addColumn("expires_at", type.text).execute();
    await trx.schema.alterTable("scimkit_tokens").addColumn("previous_hash", type.key).execute();
    await trx.schema.alterTable("scimkit_tokens").addColumn("previous_hash_valid_until", type.text).execute();
    await trx.schema.createIndex("scimkit_tokens_previous_hash").on("scimkit_tokens").column("previous_hash").execute();
  },
};
