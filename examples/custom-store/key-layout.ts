/**
 * The keyspace of the key-value store: every key it reads or writes, in one place. Each key
 * starts with its kind and the organization, so one organization's data is one set of prefixes
 * and no lookup or scan can reach another's (architecture §3).
 *
 * | key                                    | value                                 | answers                            |
 * | -------------------------------------- | ------------------------------------- | ---------------------------------- |
 * | `res:{org}:{type}:{id}`                | the resource record (JSON)            | get by id; scan all of a type      |
 * | `type:{org}:{id}`                      | the resource type                     | is this member id ours, and what?  |
 * | `idx:{org}:{type}:{attribute}:{value}` | id of the holder                      | uniqueness; `userName eq "x"`      |
 * | `ext:{org}:{type}:{externalId}:{id}`   | id                                    | `externalId eq "x"` (not unique)   |
 * | `mem:{org}:{group}:{member}`           | the member (JSON: id, type, position) | is X a member; the member list     |
 * | `rev:{org}:{member}:{group}`           | group id                              | which groups list X (for deletes)  |
 */

// Values from clients (userNames, externalIds) and URN-qualified attribute names contain ":", so
// each segment is escaped: otherwise org "a:b" would share the prefix "res:a:" with org "a", and
// `idx:…:userName:x:y` could be read two ways. Only "%" and ":" are escaped, which is reversible
// and, unlike encodeURIComponent, cannot throw on a lone surrogate in client input.
function segment(part: string): string {
  return part.replaceAll("%", "%25").replaceAll(":", "%3A");
}

function key(...parts: readonly string[]): string {
  return parts.map(segment).join(":");
}

/** The prefix of every key that starts with `parts`: the trailing ":" keeps "User" from matching "Users". */
function prefix(...parts: readonly string[]): string {
  return `${key(...parts)}:`;
}

/** Builds the store's keys; see the table above. */
export const keys = {
  /** The record of one resource. */
  resource: (orgId: string, type: string, id: string): string => key("res", orgId, type, id),
  /** Every record of one type in one organization. */
  resources: (orgId: string, type: string): string => prefix("res", orgId, type),

  /** The resource type of an id. Ids are unique within an organization, across types. */
  typeOf: (orgId: string, id: string): string => key("type", orgId, id),

  /** The holder of a unique value (`UniqueKey.attribute` and `.value`, already normalized by the core). */
  unique: (orgId: string, type: string, attribute: string, value: string): string => key("idx", orgId, type, attribute, value),

  /** One resource carrying an `externalId`. */
  externalId: (orgId: string, type: string, externalId: string, id: string): string => key("ext", orgId, type, externalId, id),
  /** Every resource carrying an `externalId`, which RFC 7643 §3.1 does not make unique. */
  externalIds: (orgId: string, type: string, externalId: string): string => prefix("ext", orgId, type, externalId),

  /** One (group, member) pair: a delta reads and writes only the pairs it names. */
  member: (orgId: string, groupId: string, memberId: string): string => key("mem", orgId, groupId, memberId),
  /** Every member of a group. */
  members: (orgId: string, groupId: string): string => prefix("mem", orgId, groupId),

  /** The reverse of `member`: one group that lists `memberId`. */
  groupOf: (orgId: string, memberId: string, groupId: string): string => key("rev", orgId, memberId, groupId),
  /** Every group that lists `memberId`, so deleting it needs no scan of all groups. */
  groupsOf: (orgId: string, memberId: string): string => prefix("rev", orgId, memberId),
} as const;
