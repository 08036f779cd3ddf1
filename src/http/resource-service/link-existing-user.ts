/**
 * `POST /Users` for a user who already exists (`ScimRouterOptions.existingUsers`): an organization
 * that turns SCIM on usually has accounts already, made by hand or by another directory, and the
 * identity provider's first push POSTs each of them. RFC 7644 §3.3 answers 409 `uniqueness`
 * (`"conflict"`, the default); with `"link"` the POST takes the existing user over instead.
 *
 * A user is found by `userName`, compared as the store holds it unique (Unicode NFC, case-folded:
 * `uniqueValue`), and by `externalId`, compared exactly (RFC 7643 §3.1: caseExact). Only users link:
 * a group's `displayName` is a label, not an identity — two directories may each have an "Admins"
 * group meaning different people — so a POST of a group that exists stays a 409.
 */
import { ScimType, isScimError, scimError } from "../../errors.js";
import type { Filter } from "../../scim/filter/filter-ast.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { ResolvedPath } from "../../scim/schema/resolved-path.js";
import { uniqueValue } from "../../scim/schema/unique-value.js";
import type { ResourceStore, StoredResource } from "../../store/resource-store.js";
import type { ExistingUserPolicy } from "./existing-user-policy.js";
import type { ServiceContext } from "./resource-service.js";
import type { TypeHandler } from "./type-handler.js";

/** The policy for a POST of resource type `type`: the organization's for users, `"conflict"` for any other type. */
export function existingUserPolicy(type: TypeHandler, context: ServiceContext): ExistingUserPolicy {
  return type.id === "User" ? (context.existingUsers ?? "conflict") : "conflict";
}

/** An identifying attribute of a POSTed user and its value. */
interface Identifier {
  readonly path: ResolvedPath;
  readonly value: string;
}

function identifiersOf(type: TypeHandler, attributes: ScimObject): Identifier[] {
  const found: Identifier[] = [];
  for (const name of ["userName", "externalId"]) {
    const resolution = type.schema.resolvePath(name);
    const value = attributes[name];
    if (resolution.ok && !resolution.path.extension && typeof value === "string") found.push({ path: resolution.path, value });
  }
  return found;
}

/**
 * The keys that serialize, within one process, the POSTs that could link to the same user: one per
 * identifying value, in a fixed order (so two POSTs never wait for each other in a cycle). Between
 * processes, the store's unique `userName` decides, and `createOrLink` retries. `externalId` is not
 * unique in the store (RFC 7643 §3.1 leaves it to the client), so two processes that at the same
 * instant POST one new `externalId` under two different `userName`s can still make two users.
 */
export function linkLockKeys(type: TypeHandler, orgId: string, attributes: ScimObject): string[] {
  return identifiersOf(type, attributes).map(({ path, value }) =>
    JSON.stringify([orgId, type.id, path.attribute.name, uniqueValue(value, path.attribute.caseExact)]),
  );
}

/**
 * The existing user a POST of `attributes` links to, or undefined when there is none. Throws 409
 * `uniqueness` naming the users when `userName` and `externalId` find more than one between them:
 * updating either would silently merge two people.
 */
export async function findUserToLink(
  store: ResourceStore,
  type: TypeHandler,
  orgId: string,
  attributes: ScimObject,
): Promise<StoredResource | undefined> {
  const matches = new Map<string, { readonly resource: StoredResource; readonly by: string[] }>();
  for (const { path, value } of identifiersOf(type, attributes)) {
    // An index answers both (ListRequest.filter): `userName` is unique, `externalId` is indexed.
    const filter: Filter<ResolvedPath> = { kind: "compare", path, op: "eq", value };
    const { resources } = await store.list({
      orgId,
      resourceType: type.id,
      filter,
      page: { kind: "index", startIndex: 1, count: 2 },
      members: false,
      countTotal: false,
    });
    for (const resource of resources) {
      const match = matches.get(resource.id) ?? { resource, by: [] };
      match.by.push(`${path.attribute.name} ${JSON.stringify(value)}`);
      matches.set(resource.id, match);
    }
  }
  if (matches.size <= 1) return [...matches.values()][0]?.resource;
  const named = [...matches.values()].map(({ resource, by }) => `${by.join(" and ")} matches user ${resource.id}`);
  throw scimError(
    "uniqueness",
    `The user matches more than one existing user, so it cannot be linked to one: ${named.join("; ")}. Make the userName and externalId name the same user, then retry.`,
  );
}

/** The three moves of a create-or-link, supplied by the resource service. */
export interface CreateOrLinkSteps<T> {
  /** The user to link to, or undefined (`findUserToLink`). */
  find(): Promise<StoredResource | undefined>;
  /** Creates the user; a 409 `uniqueness` means someone else created it first. */
  create(): Promise<T>;
  /** Updates `existing` with the POSTed representation; a 404 means it was deleted meanwhile. */
  link(existing: StoredResource): Promise<T>;
}

/** How many times a POST looks again after losing a race, before the last error is the answer. */
const ATTEMPTS = 5;

/**
 * Links to the existing user or creates a new one. A create that loses a race to another
 * process's create of the same `userName` (409 `uniqueness` from the store) looks again and links
 * to the winner; a link whose user was deleted in between looks again and creates. So two POSTs of
 * one new user give one 201 and one 200, never two users and never a 500.
 */
export async function createOrLink<T>(steps: CreateOrLinkSteps<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const existing = await steps.find();
    try {
      return existing ? await steps.link(existing) : await steps.create();
    } catch (error) {
      const lostRace = isScimError(error) && (existing ? error.status === 404 : error.scimType === ScimType.uniqueness);
      if (!lostRace || attempt >= ATTEMPTS) throw error;
    }
  }
}
