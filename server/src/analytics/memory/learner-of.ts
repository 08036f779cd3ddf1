/**
 * How a SCIM user reads as a learner (the rules of `Learner` in the analytics contract), for the
 * stores that see users as `StoredResource`s rather than as rows to query.
 */
import type { StoredResource } from "scimkit/store";
import type { Learner } from "../analytics-store.js";

const ENTERPRISE_URN = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

type Json = Readonly<Record<string, unknown>>;

function objectAt(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function displayNameOf(attributes: Json): string | undefined {
  const name = objectAt(attributes["name"]);
  const parts = [nonEmpty(name?.["givenName"]), nonEmpty(name?.["familyName"])].filter((part) => part !== undefined);
  return nonEmpty(attributes["displayName"]) ?? nonEmpty(name?.["formatted"]) ?? (parts.length > 0 ? parts.join(" ") : undefined);
}

function emailOf(attributes: Json): string | undefined {
  const emails = Array.isArray(attributes["emails"])
    ? attributes["emails"].flatMap((email: unknown): Json[] => {
        const entry = objectAt(email);
        return entry !== undefined && nonEmpty(entry["value"]) !== undefined ? [entry] : [];
      })
    : [];
  // RFC 7643 §2.2 and §8.7.1: `emails.type` is not case-exact, so "Work" is a work address too.
  const chosen =
    emails.find((email) => email["primary"] === true) ??
    emails.find((email) => typeof email["type"] === "string" && email["type"].toLowerCase() === "work") ??
    emails[0];
  return nonEmpty(chosen?.["value"]);
}

/**
 * The first work e-mail of a stored SCIM user, lower-cased, or undefined: the person a tree
 * summary counts once across organizations (`TreeSummary.people`).
 */
export function workEmailOf(user: StoredResource): string | undefined {
  const attributes = user.attributes as Json;
  if (!Array.isArray(attributes["emails"])) return undefined;
  for (const email of attributes["emails"] as unknown[]) {
    const entry = objectAt(email);
    // RFC 7643 §2.2 and §8.7.1: `emails.type` is not case-exact.
    if (typeof entry?.["type"] === "string" && entry["type"].toLowerCase() === "work" && typeof entry["value"] === "string")
      return entry["value"].toLowerCase();
  }
  return undefined;
}

/** The learner a stored SCIM user of `orgId` is. */
export function learnerOf(orgId: string, user: StoredResource): Learner {
  const attributes = user.attributes as Json;
  const displayName = displayNameOf(attributes);
  const email = emailOf(attributes);
  const department = nonEmpty(objectAt(attributes[ENTERPRISE_URN])?.["department"]);
  return {
    id: user.id,
    orgId,
    userName: String(attributes["userName"] ?? ""),
    ...(displayName === undefined ? {} : { displayName }),
    ...(email === undefined ? {} : { email }),
    // The SCIM router's events count a user without `active` as active; so does the analytics view.
    active: attributes["active"] !== false,
    ...(department === undefined ? {} : { department }),
    createdAt: user.created,
    updatedAt: user.lastModified,
  };
}
