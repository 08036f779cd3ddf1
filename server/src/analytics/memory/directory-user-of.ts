/**
 * How a stored SCIM user reads in the directory (issue 18), shared by the memory and SQL stores,
 * which both see users as `StoredResource`s.
 */
import type { StoredResource } from "scimkit/store";
import type { DirectoryUser } from "../analytics-directory.js";

type Json = Readonly<Record<string, unknown>>;

/**
 * `attributes` without `password`: RFC 7643 §4.1.1 says it is never returned, and a store may
 * keep what the client sent. The console shows the rest as stored.
 */
export function withoutSecrets(attributes: Json): Json {
  const { password: _password, ...rest } = attributes;
  return rest;
}

/** The directory list item of a stored user. */
export function directoryUserOf(user: StoredResource): DirectoryUser {
  const attributes = user.attributes as Json;
  const { displayName, externalId, name, emails } = attributes;
  return {
    id: user.id,
    userName: String(attributes["userName"] ?? ""),
    ...(typeof displayName === "string" ? { displayName } : {}),
    ...(typeof externalId === "string" ? { externalId } : {}),
    // The SCIM router's events count a user without `active` as active; so does the directory.
    active: attributes["active"] !== false,
    ...(typeof name === "object" && name !== null && !Array.isArray(name) ? { name: name as Json } : {}),
    ...(Array.isArray(emails) ? { emails } : {}),
  };
}
