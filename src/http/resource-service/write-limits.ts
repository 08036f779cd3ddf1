/**
 * Bounds on the sizes of a write that a client controls (architecture §4b), so that no request can make
 * the service do unbounded work. Each is refused with a SCIM error naming the bound and the value,
 * and nothing is written.
 *
 * The defaults are far above what identity providers send:
 * - Microsoft Entra ID sends one operation per changed attribute — its documented user update
 *   carries six ("Known issues and resolutions with SCIM 2.0 protocol compliance", Requests to
 *   replace multiple attributes) — and requires the `type` of each value of a multi-valued
 *   attribute to be unique ("Tutorial: Develop and plan provisioning for a SCIM endpoint",
 *   General), so a user holds a handful of e-mails, phone numbers and addresses. It adds and
 *   removes group members with PATCH, never a full member list on create ("Groups are created with
 *   an empty members list").
 * - Okta's group push sends one `remove members[value eq "…"]` operation per removed member and
 *   one `add` with the added members, or a `replace` with the group's whole member list ("Okta and
 *   SCIM Version 2.0", Update specific Group membership): the member and operation counts of one
 *   request follow the group's size, which the default 1 MB body holds to about 20,000 ids.
 * - Other SCIM services cap far lower and are served: AWS IAM Identity Center, which Entra and
 *   Okta both provision, takes at most 100 membership changes per PATCH (PatchGroup,
 *   Constraints); IBM Verify 2,500 (SCIM capabilities, large group support).
 * We found no sizes stated in OneLogin's or Google's provisioning documentation.
 */

export interface WriteLimits {
  /**
   * Most operations in one PATCH request (RFC 7644 §3.5.2). More is refused whole with 413 naming
   * the limit, as RFC 7644 §3.7.4 does for `/Bulk`. Default 10,000: Okta's group push sends an
   * operation per removed member, and 10,000 such operations are about what a 1 MB body holds.
   */
  readonly maxPatchOperations: number;
  /**
   * Most values a multi-valued attribute of a resource may hold (`emails`, `phoneNumbers`,
   * `addresses`, `entitlements`, `roles`, …; not group `members`, bounded by `maxMembers`). A POST,
   * PUT or PATCH that would go beyond it is refused with 400 `invalidValue` naming the attribute,
   * the count and the limit. Default 1,000: Entra sends at most one value per `type`.
   */
  readonly maxValues: number;
  /**
   * Most distinct group members one request may name: the `members` of a POST or PUT, or the
   * members a PATCH adds and removes (or replaces the list with). Members are stored as deltas
   * (architecture §3), so this bounds a request, not a group. More is refused with 413 naming the limit.
   * Default 20,000: above what fits in the default 1 MB body; raise it with `bodyLimit` for
   * identity providers that replace large groups' member lists whole.
   */
  readonly maxMembers: number;
}

/** The defaults of every `WriteLimits` member. */
export const DEFAULT_WRITE_LIMITS: WriteLimits = { maxPatchOperations: 10_000, maxValues: 1_000, maxMembers: 20_000 };
