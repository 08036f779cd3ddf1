/**
 * The options every store that ships with scimkit shares, defined once so they mean the same in
 * the memory store, the SQL store and adapters that follow them.
 */
export interface StoreOptions {
  /**
   * The clock for the one write that may carry no time of its own: groups that lose a member
   * because the member was deleted, when `DeleteRequest.now` is absent. Default: the system clock,
   * as ISO 8601.
   */
  readonly now?: () => string;
}
