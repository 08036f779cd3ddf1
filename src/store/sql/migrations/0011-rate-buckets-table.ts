/**
 * Version 11: `scimkit_rate_buckets`, the token buckets `sqlRateLimiter` shares between every
 * process on the database (issue 19), so N hosts allow an organization its rate once, not N times.
 */
import type { Migration } from "./migration.js";

/** Creates `scimkit_rate_buckets`. */
export const rateBucketsTable: Migration = {
  version: 11,
  name: "rate-buckets-table",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_rate_buckets")
      // `scim:<orgId>` or `analytics:<key id>`: the limiter's namespace, then its key.
      .addColumn("key", type.key, (column) => column.primaryKey())
      // Thousandths of a request, so a bucket refills in fractions without a floating-point type.
      .addColumn("milli_tokens", type.counter, (column) => column.notNull())
      // Milliseconds since the epoch when `milli_tokens` was last brought up to date.
      .addColumn("at_ms", type.counter, (column) => column.notNull())
      .execute();
  },
};
