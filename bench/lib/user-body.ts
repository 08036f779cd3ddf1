/**
 * The deterministic user every target seeds and the runner posts: user `i` has a spec-valid
 * body (RFC 7643 §4.1 core User + §4.3 enterprise extension) with the attributes a real IdP
 * sends — names, a work and an other e-mail, a work address, a department.
 */

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const PATCH_OP_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** How many departments users are spread over: user i is in `dept{i % DEPARTMENTS}`. */
export const DEPARTMENTS = 20;

const GIVEN = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus", "Radia", "Tim"];
const FAMILY = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Dijkstra",
  "Liskov",
  "Knuth",
  "Allen",
  "Thompson",
  "Hamilton",
  "Wirth",
  "Perlman",
  "Berners-Lee",
];
const COUNTRIES = ["DE", "FR", "US", "GB", "NL", "SE", "JP", "BR"];

/** `user{i}@dept{i%20}.example.com` — user i's userName and work e-mail. */
export function userNameOf(i: number): string {
  return `user${i}@dept${i % DEPARTMENTS}.example.com`;
}

/** A SCIM User body (as POSTed) for user `i`; `i` alone decides every value. */
export function userBody(i: number): Record<string, unknown> {
  const givenName = GIVEN[i % GIVEN.length] as string;
  const familyName = FAMILY[Math.floor(i / GIVEN.length) % FAMILY.length] as string;
  return {
    schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
    userName: userNameOf(i),
    externalId: `ext-${i}`,
    active: true,
    name: { givenName, familyName, formatted: `${givenName} ${familyName}` },
    displayName: `${givenName} ${familyName}`,
    emails: [
      { value: userNameOf(i), type: "work", primary: true },
      { value: `${givenName.toLowerCase()}.${familyName.toLowerCase()}${i}@mail.example.org`, type: "other" },
    ],
    addresses: [
      {
        type: "work",
        streetAddress: `${(i % 200) + 1} Main Street`,
        locality: "Springfield",
        postalCode: String(10000 + (i % 89999)),
        country: COUNTRIES[i % COUNTRIES.length],
        primary: true,
      },
    ],
    [ENTERPRISE_SCHEMA]: {
      employeeNumber: String(100000 + i),
      department: `dept${i % DEPARTMENTS}`,
    },
  };
}

/** The PUT body for user `i`: the same user with a changed name and department (version `v`). */
export function userReplaceBody(i: number, v: number): Record<string, unknown> {
  const body = userBody(i);
  const name = body["name"] as Record<string, string>;
  return {
    ...body,
    name: { ...name, familyName: `${name["familyName"]}-${v}` },
    [ENTERPRISE_SCHEMA]: { employeeNumber: String(100000 + i), department: `dept${(i + v) % DEPARTMENTS}` },
  };
}

/** A PatchOp body that replaces `active`. */
export function patchActiveBody(active: boolean): Record<string, unknown> {
  return { schemas: [PATCH_OP_SCHEMA], Operations: [{ op: "replace", path: "active", value: active }] };
}

/** A PatchOp body that adds `ids` as members of a group. */
export function addMembersBody(ids: readonly string[]): Record<string, unknown> {
  return { schemas: [PATCH_OP_SCHEMA], Operations: [{ op: "add", path: "members", value: ids.map((value) => ({ value })) }] };
}

/** A PatchOp body that removes one member by `members[value eq "…"]`. */
export function removeMemberBody(id: string): Record<string, unknown> {
  return { schemas: [PATCH_OP_SCHEMA], Operations: [{ op: "remove", path: `members[value eq "${id}"]` }] };
}

/** A group body (as POSTed). */
export function groupBody(displayName: string, memberIds: readonly string[] = []): Record<string, unknown> {
  return { schemas: [GROUP_SCHEMA], displayName, members: memberIds.map((value) => ({ value })) };
}
