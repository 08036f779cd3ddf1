/**
 * Version 17: the backlog bound of RFC 9967 delivery (issue 27). The outbox no longer keeps an
 * organization's events for as long as its slowest receiver lags: a receiver left behind the bound
 * has the events it missed counted in `dropped`, as RFC 8935 and RFC 8936 have no way to tell it.
 */
import type { Migration } from "./migration.js";

/** Adds `scimkit_event_receivers.dropped`. */
export const eventReceiverDropped: Migration = {
  version: 17,
  name: "event-receiver-dropped",
  async up(trx, { columnTypes: type }) {
    // 0 for the receivers of version 16: none of them ever lost an event.
    await trx.schema
      .alterTable("scimkit_event_receivers")
      .addColumn("dropped", type.counter, (column) => column.notNull().defaultTo(0))
      .execute();
  },
};
