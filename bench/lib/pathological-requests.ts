/**
 * The request bodies organization A sends in the noisy-neighbour scenario (issue 12): a user with
 * thousands of e-mails, a PATCH of thousands of `emails[value eq "…"]` operations, an `add` of
 * thousands of values, and a Bulk request whose `bulkId` references chain backwards. Each is
 * valid SCIM; what makes it expensive is its size and shape, not an error.
 */
import { ENTERPRISE_SCHEMA, PATCH_OP_SCHEMA, USER_SCHEMA } from "./user-body.js";

/** The sizes of A's requests, as the issue states them. */
export const PATHOLOGY = {
  manyEmails: 10_000,
  patchOperations: 12_000,
  addValues: 9_999,
  bulkOperations: 1_000,
} as const;

export const BULK_REQUEST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";

/** One of the list requests: what the report calls it, and its query under `/Users`. */
export interface ListRequest {
  readonly name: string;
  readonly query: string;
}

/**
 * The three list requests, looped by one client. The sorted page starts at 40,000 as the issue
 * has it; with fewer users (a smoke run) at 80% of them, so it is still a deep page, not an empty one.
 */
export function pathologicalLists(users: number): readonly ListRequest[] {
  const startIndex = users >= 50_000 ? 40_000 : Math.max(1, Math.floor(users * 0.8));
  return [
    // "x" is in every seeded e-mail (…example.com): a substring test on every user, all match.
    { name: 'filter=emails.value co "x"', query: `filter=${encodeURIComponent('emails.value co "x"')}` },
    // No family name ends in "z" and no user has a title: every user is tested, none matches.
    { name: 'filter=name.familyName ew "z" or title pr', query: `filter=${encodeURIComponent('name.familyName ew "z" or title pr')}` },
    { name: `sortBy=name.familyName&startIndex=${startIndex}`, query: `sortBy=name.familyName&startIndex=${startIndex}` },
  ];
}

/**
 * The `j`-th e-mail of the many-e-mails user: short, so 12,000 PATCH operations on them stay
 * under the host's 1 MiB body limit and the request is refused (if at all) for its shape.
 */
export function manyEmailValue(j: number): string {
  return `e${j}@n.io`;
}

/** A POST /Users body for a user holding `count` e-mails. */
export function manyEmailsUserBody(userName: string, count: number): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA],
    userName,
    name: { givenName: "Many", familyName: "Mails" },
    emails: Array.from({ length: count }, (_, j) => ({ value: manyEmailValue(j), type: "work" })),
  };
}

/**
 * A PatchOp of `operations` `replace emails[value eq "…"].type` operations over the user's
 * e-mails 1 … held-1, round-robin (12,000 over 9,999 e-mails addresses about 2,000 twice). Every
 * filter matches a held value, so no operation fails with noTarget (RFC 7644 §3.5.2.3). E-mail 0
 * keeps its type "work": the host requires a work e-mail, and a PATCH that removed the last one
 * would be refused for that rather than for its size.
 */
export function replaceEmailTypesBody(held: number, operations: number, type: string): Record<string, unknown> {
  const targets = Math.max(1, held - 1);
  return {
    schemas: [PATCH_OP_SCHEMA],
    Operations: Array.from({ length: operations }, (_, k) => ({
      op: "replace",
      path: `emails[value eq "${manyEmailValue(1 + (k % targets))}"].type`,
      value: type,
    })),
  };
}

/** A PatchOp that adds `count` e-mails no user holds yet (`round` keeps each request's values new). */
export function addEmailsBody(count: number, round: number): Record<string, unknown> {
  return {
    schemas: [PATCH_OP_SCHEMA],
    Operations: [
      { op: "add", path: "emails", value: Array.from({ length: count }, (_, j) => ({ value: `a${round}.${j}@n.io`, type: "other" })) },
    ],
  };
}

/** A PatchOp that puts the user back to its one e-mail, so it can take the next `add`. */
export function resetEmailsBody(value: string): Record<string, unknown> {
  return { schemas: [PATCH_OP_SCHEMA], Operations: [{ op: "replace", path: "emails", value: [{ value, type: "work", primary: true }] }] };
}

/** A small user with one e-mail, the target of an `add`. */
export function oneEmailUserBody(userName: string): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA],
    userName,
    name: { givenName: "One", familyName: "Mail" },
    emails: [{ value: userName, type: "work", primary: true }],
  };
}

/**
 * A BulkRequest of `count` POST /Users where operation k's manager is `bulkId:…{k+1}`: each
 * operation references one listed after it, so they can only run last to first (RFC 7644 §3.7.2).
 * `prefix` keeps the userNames of successive requests unique.
 */
export function reverseChainBulkBody(count: number, prefix: string): Record<string, unknown> {
  return {
    schemas: [BULK_REQUEST_SCHEMA],
    Operations: Array.from({ length: count }, (_, k) => ({
      method: "POST",
      path: "/Users",
      bulkId: `${prefix}-${k}`,
      data: {
        schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
        userName: `${prefix}-${k}@n.io`,
        name: { givenName: "Chain", familyName: `Link ${k}` },
        emails: [{ value: `${prefix}-${k}@n.io`, type: "work", primary: true }],
        ...(k + 1 < count ? { [ENTERPRISE_SCHEMA]: { manager: { value: `bulkId:${prefix}-${k + 1}` } } } : {}),
      },
    })),
  };
}
