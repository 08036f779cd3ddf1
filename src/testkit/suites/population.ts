/**
 * The fixed population the filter, paging, sorting and cursor suites query: six users whose
 * attributes cover every edge those suites need (mixed case, ties, absent versus empty values,
 * a primary e-mail that is not the first, numbers that order differently as text), and four groups.
 *
 * The reference views are built from what the kit sent (ids, `now`s, attributes, members), never
 * from what the store returned, so a store is not graded against its own answers.
 */
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { StoredMember, StoredResource } from "../../store/resource-store.js";
import type { ConformanceContext } from "../conformance-test.js";
import {
  ENTERPRISE_URN,
  METRICS_URN,
  canonicalAttributes,
  createResource,
  groupAttributes,
  newId,
  uniqueKeys,
  viewOf,
  type ResourceTypeId,
} from "./helpers.js";

/** The users' names in the kit, in creation order. */
export const USER_NAMES = ["alice", "bob", "carol", "dave", "erin", "frank"] as const;
export type UserName = (typeof USER_NAMES)[number];

/** The groups' names in the kit. */
export const GROUP_NAMES = ["engineers", "sales", "everyone", "empty"] as const;
export type GroupName = (typeof GROUP_NAMES)[number];

/** A resource as the kit wrote it, and its reference view. */
export interface SeededResource {
  readonly id: string;
  readonly created: string;
  readonly lastModified: string;
  readonly attributes: ScimObject;
  readonly view: ScimObject;
}

/** The seeded organization. */
export interface Population {
  readonly users: Readonly<Record<UserName, SeededResource>>;
  readonly groups: Readonly<Record<GroupName, SeededResource>>;
  /** The kit's name of a seeded resource id, for readable failures. */
  nameOf(id: string): string;
  /**
   * The kit's name of a seeded resource of `type`. A store whose database assigns ids may give a
   * user and a group the same id (two tables), so lists of one type name by type.
   */
  nameIn(type: ResourceTypeId, id: string): string;
}

function userBodies(ids: Readonly<Record<UserName, string>>): Readonly<Record<UserName, Readonly<Record<string, unknown>>>> {
  return {
    alice: {
      userName: "alice@acme.test",
      externalId: "ext-1",
      name: { givenName: "Alice", familyName: "Anderson" },
      displayName: "Alice Anderson",
      nickName: "Al",
      title: "Engineer",
      active: true,
      // The "x" sits in the home address only: `emails[type eq "work" and value co "x"]` must not match.
      emails: [
        { value: "alice@work.test", type: "work", primary: true },
        { value: "alice.x@home.test", type: "home" },
      ],
      [ENTERPRISE_URN]: { department: "Engineering", employeeNumber: "100" },
      [METRICS_URN]: { level: 10, score: 2.5 },
    },
    bob: {
      userName: "Bob@Acme.test",
      externalId: "EXT-2",
      // Lower-case on purpose: a case-sensitive sort would put it before "Anderson".
      name: { givenName: "Bob", familyName: "brown" },
      nickName: "",
      active: false,
      emails: [{ value: "bob.x@work.test", type: "work" }],
      [ENTERPRISE_URN]: { department: "sales" },
      [METRICS_URN]: { level: 9, score: 10 },
    },
    carol: {
      userName: "carol@beta.test",
      externalId: "ext-3",
      name: { givenName: "Carol", familyName: "Clark" },
      active: true,
      // The first e-mail is not the primary one: sorting by emails.value must use the primary.
      emails: [
        { value: "aaa.carol@home.test", type: "home" },
        { value: "carol@work.test", type: "work", primary: true },
      ],
      title: "Analyst",
      [ENTERPRISE_URN]: { department: "Engineering", manager: { value: ids.alice } },
      // 100 sorts before 9 and 10 as text, after them as a number.
      [METRICS_URN]: { level: 100 },
    },
    dave: {
      // No name, e-mail, active flag or extension: every "missing value" edge.
      userName: "dave@gamma.test",
    },
    erin: {
      userName: "erin@acme.test",
      // Shared with alice: externalId is not unique.
      externalId: "ext-1",
      name: { familyName: "Evans" },
      active: true,
      emails: [{ value: "ERIN.X@Work.test", type: "work" }, { type: "other" }],
      [METRICS_URN]: { level: -5, score: 0 },
    },
    frank: {
      userName: "FRANK@acme.test",
      // Ties with alice's "Anderson" case-insensitively: the id breaks the tie.
      name: { givenName: "Frank", familyName: "anderson" },
      nickName: "Frankie",
      active: true,
      // An e-mail without a value: `emails pr` holds, `emails.value pr` does not.
      emails: [{ type: "work" }],
      [ENTERPRISE_URN]: { department: "" },
      [METRICS_URN]: { level: 10 },
    },
  };
}

function seeded(type: ResourceTypeId, resource: Omit<SeededResource, "view">, members?: readonly StoredMember[]): SeededResource {
  const stored: StoredResource = { ...resource, version: "0", ...(members ? { members } : {}) };
  return { ...resource, view: viewOf(type, stored) };
}

/**
 * Creates the six users and the four groups in `context.orgId`, then updates carol so that her
 * `lastModified` is the latest of all.
 */
export async function seedPopulation(context: ConformanceContext): Promise<Population> {
  const ids = Object.fromEntries(USER_NAMES.map((name) => [name, newId()])) as Record<UserName, string>;
  const users = {} as Record<UserName, SeededResource>;
  for (const name of USER_NAMES) {
    const now = context.now();
    // Built now, so that a reference to a user created before (carol's manager) holds that user's stored id.
    const attributes = canonicalAttributes("User", userBodies(ids)[name]);
    // The store gets its own copy, so the reference views stay what the kit sent whatever it does.
    const created = await createResource(context, "User", structuredClone(attributes), { id: ids[name], now });
    // A store whose database assigns ids returns its own (`StoredResource.id`); the core, and the kit, go by it.
    const id = created.resource.id;
    ids[name] = id;
    users[name] = seeded("User", { id, created: now, lastModified: now, attributes });
  }
  const carol = users.carol;
  const carolAttributes = { ...carol.attributes, title: "Lead Analyst" };
  const carolModified = context.now();
  await context.store.update({
    orgId: context.orgId,
    resourceType: "User",
    id: carol.id,
    now: carolModified,
    attributes: structuredClone(carolAttributes),
    uniqueKeys: uniqueKeys("User", carolAttributes),
    unknownMembers: "ignore",
    members: false,
  });
  users.carol = seeded("User", { ...carol, attributes: carolAttributes, lastModified: carolModified });

  const userMembers = (...names: readonly UserName[]): StoredMember[] => names.map((name) => ({ value: users[name].id, type: "User" }));
  const groups = {} as Record<GroupName, SeededResource>;
  const plan: readonly (readonly [GroupName, string, () => StoredMember[]])[] = [
    ["engineers", "Engineers", () => userMembers("alice", "carol")],
    ["sales", "Sales", () => userMembers("bob")],
    // A nested group: stored with type "Group", not expanded.
    ["everyone", "Everyone", () => [...userMembers(...USER_NAMES), { value: groups.engineers.id, type: "Group" }]],
    ["empty", "Empty", () => []],
  ];
  // A store that keeps no groups (`capabilities.groups: false`) is checked on its users alone.
  const keepsGroups = context.store.capabilities?.groups !== false;
  for (const [name, displayName, members] of keepsGroups ? plan : []) {
    const now = context.now();
    const attributes = groupAttributes(displayName);
    const stored = members();
    const created = await createResource(context, "Group", structuredClone(attributes), {
      id: newId(),
      now,
      members: stored.map((member) => member.value),
    });
    const id = created.resource.id;
    groups[name] = seeded("Group", { id, created: now, lastModified: now, attributes }, stored);
  }

  const userNames = new Map(Object.entries(users).map(([name, resource]) => [resource.id, name]));
  const groupNames = new Map(Object.entries(groups).map(([name, resource]) => [resource.id, name]));
  const nameIn = (type: ResourceTypeId, id: string): string => (type === "User" ? userNames : groupNames).get(id) ?? `<unknown ${id}>`;
  return { users, groups, nameIn, nameOf: (id) => userNames.get(id) ?? groupNames.get(id) ?? `<unknown ${id}>` };
}

/** The reference views of the population's users. */
export function userViews(population: Population): ScimObject[] {
  return USER_NAMES.map((name) => population.users[name].view);
}

/** The reference views of the population's groups. */
export function groupViews(population: Population): ScimObject[] {
  return GROUP_NAMES.map((name) => population.groups[name].view);
}
