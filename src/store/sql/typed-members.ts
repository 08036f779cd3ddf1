/**
 * What the SQL resource store's writes derive from a request: the members' types as stored, and
 * the `externalId` column.
 */
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { StoredMember } from "../resource-store.js";

/** The members of `ids` that exist, each with the type it was found to be. */
export function typedMembers(ids: readonly string[], types: ReadonlyMap<string, string>): StoredMember[] {
  return ids.flatMap((value) => {
    const type = types.get(value);
    return type === undefined ? [] : [{ value, type }];
  });
}

/** The `external_id` column of `attributes`. */
export function externalIdOf(attributes: ScimObject): string | null {
  const value = attributes["externalId"];
  return typeof value === "string" ? value : null;
}
