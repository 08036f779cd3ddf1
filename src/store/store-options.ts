/**
 * The options every store that ships with scimkit shares, defined once so they mean the same in
 * the memory store, the SQL store and adapters that follow them.
 */
export interface StoreOptions {
  /**
   * The resource types that have a member list (RFC 7643 §4.2 `members`): their resources carry
   * `members`, `[]` if need be, whenever a request asks for members; other resources carry it only
   * once a write has given them members. A store sees no schema, so this says it. Default `["Group"]`.
   */
  readonly groupTypes?: readonly string[];
  /**
   * The clock for the one write that may carry no time of its own: groups that lose a member
   * because the member was deleted, when `DeleteRequest.now` is absent. Default: the system clock,
   * as ISO 8601.
   */
  readonly now?: () => string;
}
