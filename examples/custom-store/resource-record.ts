/**
 * One resource as the key-value store serializes it under `res:{org}:{type}:{id}`, and the copy
 * of it a caller receives. Members are not in the record: they are pairs of their own (see
 * `member-pairs.ts`), so reading or renaming a group of 100,000 never touches them.
 */
import type { ScimObject } from "scimkit/core";
import type { StoredMember, StoredResource, UniqueKey } from "scimkit/store";

/** The JSON document under a `res:` key. */
export interface ResourceRecord {
  readonly id: string;
  /**
   * A counter: 1 on create, one more on every write that changes something. A counter makes the
   * expected-version check a plain comparison, and maps onto a backend's conditional write
   * (DynamoDB `ConditionExpression: version = :expected`) when there is no lock to lean on.
   */
  readonly version: number;
  readonly created: string;
  readonly lastModified: string;
  /** The canonical attributes exactly as the core gave them. */
  readonly attributes: ScimObject;
  /** The unique values this resource holds under `idx:` keys, so an update or delete releases exactly those. */
  readonly uniqueKeys: readonly UniqueKey[];
  /**
   * Whether the resource has a member list: it was created with `CreateRequest.members`, which the
   * core sends exactly for a type with members (a Group). Reads that ask for members get `[]`
   * rather than nothing for such a resource with none.
   */
  readonly hasMembers: boolean;
  /**
   * The position the next added member gets. Pairs are found by member id, not by position, so
   * the position is what keeps the member list in the order members were added.
   */
  readonly nextMemberPosition: number;
}

export function parseRecord(json: string): ResourceRecord {
  return JSON.parse(json) as ResourceRecord;
}

/** The record as stored. Serializing is also what makes the store's copy independent of the caller's objects. */
export function serializeRecord(record: ResourceRecord): string {
  return JSON.stringify(record);
}

/** The record's `externalId`, the one non-unique attribute the store indexes. */
export function externalIdOf(attributes: ScimObject): string | undefined {
  const value = attributes["externalId"];
  return typeof value === "string" ? value : undefined;
}

/**
 * The resource as the contract returns it. Every record is parsed afresh from JSON, so the caller
 * owns the result and changing it changes nothing stored. `members` is there only when given.
 */
export function storedResourceOf(record: ResourceRecord, members?: readonly StoredMember[]): StoredResource {
  return {
    id: record.id,
    version: String(record.version),
    created: record.created,
    lastModified: record.lastModified,
    attributes: record.attributes,
    ...(members ? { members } : {}),
  };
}
