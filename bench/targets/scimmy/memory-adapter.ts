/**
 * The peer's storage: a small in-memory adapter for scimmy, written the way scimmy's own docs
 * and examples show (the `SCIMMY.Types.Resource` handler typedefs, scimmy's test fixtures and
 * the scimmy-routers example app). One `Map` per resource type holds plain JSON records; the
 * `ingress` / `egress` / `degress` handlers declared on `SCIMMY.Resources.User` (with the
 * enterprise extension) and `SCIMMY.Resources.Group` read and write it:
 *
 * - `egress` with an id is a `Map.get`; without one it returns every record, narrowed by the
 *   request's parsed filter with scimmy's own `resource.filter.match(...)` — a scan. scimmy then
 *   wraps each returned record in a schema instance and sorts/pages the list itself
 *   (`Messages.ListResponse` slices `startIndex`/`count`), so any list request costs a scan of
 *   every record plus a schema instance per match — an unfiltered page wraps all of them.
 * - `ingress` stores the inbound schema instance as plain JSON (minus `schemas`/`meta`, which
 *   scimmy recomputes on the way out) under a fresh UUID, or replaces the record for PUT — and for
 *   PATCH, which scimmy implements as egress → apply PatchOp → ingress of the whole resource.
 * - `degress` deletes by id.
 *
 * Deliberately absent, because a plain scimmy adapter does not have them: secondary indexes,
 * ETags/versions, member validation, `User.groups` back-references, cascading deletes. The one
 * rule added is RFC 7643 §4.1's `userName` uniqueness (409 `uniqueness`), done the plain way — a
 * case-insensitive scan on create, and on replace when the userName changes — since scimmy itself
 * does not enforce it and a peer that skipped it would not do the work the compared server does.
 */
import { randomUUID } from "node:crypto";
import SCIMMY from "scimmy";

/** What one collection stores: the inbound attributes plus the id and timestamps. */
export interface StoredRecord {
  [attribute: string]: unknown;
  id: string;
  meta: { created: string; lastModified: string };
}

type Filter = InstanceType<typeof SCIMMY.Types.Filter>;

/** Throws a SCIM 409 when `attributes` would collide; `existing` is the record being replaced, if any. */
type UniquenessRule = (attributes: Record<string, unknown>, existing: StoredRecord | undefined, all: Iterable<StoredRecord>) => void;

/** Plain JSON of a scimmy schema instance (its `toJSON` drops `returned: never` attributes like password). */
function plain(instance: object): Record<string, unknown> {
  const { schemas: _schemas, meta: _meta, id: _id, ...attributes } = JSON.parse(JSON.stringify(instance)) as Record<string, unknown>;
  return attributes;
}

function notFound(id: string): Error {
  return new SCIMMY.Types.Error(404, null as unknown as string, `Resource ${id} not found`);
}

/** One resource type's records, keyed by id. */
export class MemoryCollection {
  readonly records = new Map<string, StoredRecord>();

  constructor(private readonly checkUnique?: UniquenessRule) {}

  get(id: string): StoredRecord {
    const record = this.records.get(id);
    if (!record) throw notFound(id);
    return record;
  }

  /** Every record, or those the scimmy filter matches (a scan, as in scimmy's examples). */
  list(filter: Filter | undefined): StoredRecord[] {
    const all = [...this.records.values()];
    return filter ? (filter.match(all) as StoredRecord[]) : all;
  }

  /** Stores a new record from a scimmy schema instance (or already-plain attributes). */
  create(instance: object, options: { readonly skipUniqueness?: boolean } = {}): StoredRecord {
    const attributes = plain(instance);
    if (!options.skipUniqueness) this.checkUnique?.(attributes, undefined, this.records.values());
    const now = new Date().toISOString();
    const record: StoredRecord = { ...attributes, id: randomUUID(), meta: { created: now, lastModified: now } };
    this.records.set(record.id, record);
    return record;
  }

  /** Replaces the record `id` (PUT, and PATCH after scimmy applied the operations). */
  replace(id: string, instance: object): StoredRecord {
    const existing = this.get(id);
    const attributes = plain(instance);
    this.checkUnique?.(attributes, existing, this.records.values());
    const record: StoredRecord = { ...attributes, id, meta: { created: existing.meta.created, lastModified: new Date().toISOString() } };
    this.records.set(id, record);
    return record;
  }

  delete(id: string): void {
    if (!this.records.delete(id)) throw notFound(id);
  }
}

/**
 * RFC 7643 §4.1: userName is unique and case-insensitive — checked by a scan (no index), on
 * create and when a replace changes the userName.
 */
function userNameUnique(attributes: Record<string, unknown>, existing: StoredRecord | undefined, all: Iterable<StoredRecord>): void {
  if (existing && existing["userName"] === attributes["userName"]) return;
  const userName = String(attributes["userName"] ?? "").toLowerCase();
  for (const record of all) {
    if (record !== existing && String(record["userName"]).toLowerCase() === userName) {
      throw new SCIMMY.Types.Error(409, "uniqueness", `userName '${String(attributes["userName"])}' is already in use`);
    }
  }
}

export interface ScimmyMemoryAdapter {
  readonly users: MemoryCollection;
  readonly groups: MemoryCollection;
}

/** The three handlers scimmy calls for one resource type (its `declare(resource, config)` form). */
function handlersFor(collection: MemoryCollection) {
  return {
    ingress: (resource: { id?: string }, instance: object) =>
      resource.id ? collection.replace(resource.id, instance) : collection.create(instance),
    egress: (resource: { id?: string; filter?: Filter }) => (resource.id ? collection.get(resource.id) : collection.list(resource.filter)),
    degress: (resource: { id?: string }) => {
      if (!resource.id) throw new SCIMMY.Types.Error(404, null as unknown as string, "DELETE needs an id");
      collection.delete(resource.id);
    },
  };
}

/**
 * Declares Users (core schema + the enterprise extension, not required) and Groups to scimmy,
 * backed by two in-memory collections. Call once, before constructing `SCIMMYRouters`, which
 * mounts the resource types declared at that moment.
 */
export function declareMemoryResources(): ScimmyMemoryAdapter {
  const users = new MemoryCollection(userNameUnique);
  const groups = new MemoryCollection();
  SCIMMY.Resources.declare(SCIMMY.Resources.User, {
    ...handlersFor(users),
    extensions: [{ schema: SCIMMY.Schemas.EnterpriseUser, required: false }],
  });
  SCIMMY.Resources.declare(SCIMMY.Resources.Group, handlersFor(groups));
  return { users, groups };
}
