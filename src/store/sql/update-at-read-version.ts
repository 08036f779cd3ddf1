/**
 * An attribute update written without reading the row first (issue 29): the caller read the
 * resource at version V and asks for the write only at V (`UpdateRequest.read`), so the row, its
 * attributes and the keys they derive are known — the update is one `… where version = V` with
 * the key changes behind it, sent to SQLite's writer as one message instead of a read and then a
 * write. Whatever this cannot settle alone goes back to the general path (`updateResourceRow`),
 * which reads: a row that is gone or at another version, or that holds other unique keys than
 * its read attributes derive (a profile that changed what is unique since the write that claimed them).
 */
import { sql, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import type { UniqueKey, UpdateRequest, WriteResult } from "../resource-store.js";
import { runDeferrable } from "./deferred-statement.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { externalIdOf } from "./typed-members.js";
import { claimUniqueKeys } from "./unique-key-rows.js";

/** The errors that send a write back to the general path; nothing of it was committed. */
const unsettled = new WeakSet<Error>();

function unsettledError(reason: string): Error {
  const error = new Error(`update at the read version: ${reason}; retried by reading the row`);
  unsettled.add(error);
  return error;
}

/** Whether `error` means "write this again through `updateResourceRow`". */
export function isUnsettled(error: unknown): boolean {
  return error instanceof Error && unsettled.has(error);
}

/**
 * Whether `request` can be written by `updateAtReadVersion`: new attributes at the version it was
 * read at, no membership change, no members to return, and a dialect whose key claims skip a
 * conflict (SQLite, PostgreSQL).
 */
export function canUpdateAtReadVersion(dialect: SqlDialect, request: UpdateRequest): boolean {
  const { read } = request;
  return (
    read !== undefined &&
    request.attributes !== undefined &&
    request.membership === undefined &&
    !request.members &&
    request.expectedVersion === read.version &&
    (dialect.name === "sqlite" || dialect.name === "postgres")
  );
}

function sameKey(a: UniqueKey, b: UniqueKey): boolean {
  return a.attribute === b.attribute && a.value === b.value;
}

/** `k`'s (attribute, value) is one of `keys`. */
function oneOf(keys: readonly UniqueKey[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.join(
    keys.map((key) => sql`(k.attribute = ${key.attribute} and k.value = ${key.value})`),
    sql` or `,
  )})`;
}

/**
 * Writes `request` (`canUpdateAtReadVersion`) in `trx`. Throws an `isUnsettled` error, after which
 * the transaction must be rolled back and the write made by `updateResourceRow`.
 */
export async function updateAtReadVersion(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  request: UpdateRequest,
): Promise<WriteResult> {
  const { orgId, id, read, resourceType } = request;
  const attributes = request.attributes;
  if (read === undefined || attributes === undefined) throw unsettledError("no read version");
  const held = read.uniqueKeys;
  const heldKeys = sql`from scimkit_unique_keys k where k.org_id = ${orgId} and k.id = ${id} and k.resource_type = ${resourceType}`;
  const version = Number(read.version) + 1;
  // First, so a row at another version (or gone), or holding other keys than the ones its read
  // attributes derive, stops the transaction before any key moves.
  let update = trx
    .updateTable("scimkit_resources")
    .set({ version, last_modified: request.now, attributes: dialect.toJson(attributes), external_id: externalIdOf(attributes) })
    .where("org_id", "=", orgId)
    .where("resource_type", "=", resourceType)
    .where("id", "=", id)
    .where("version", "=", Number(read.version))
    .where(sql<number>`(select count(*) ${heldKeys})`, "=", held.length);
  if (held.length > 0) update = update.where(sql<number>`(select count(*) ${heldKeys} and ${oneOf(held)})`, "=", held.length);
  await runDeferrable(trx, update.compile(), {
    atLeast: 1,
    otherwise: () => unsettledError("the row is not at the version read, or holds other keys"),
  });

  for (const key of held) {
    if (request.uniqueKeys?.some((wanted) => sameKey(key, wanted))) continue;
    const release = trx
      .deleteFrom("scimkit_unique_keys")
      .where("org_id", "=", orgId)
      .where("resource_type", "=", resourceType)
      .where("attribute", "=", key.attribute)
      .where("value", "=", key.value)
      .where("id", "=", id)
      .compile();
    await runDeferrable(trx, release);
  }
  // The row held exactly `held`: a key it did not hold that another resource holds is that key's 409.
  const claimed = (request.uniqueKeys ?? []).filter((key) => !held.some((other) => sameKey(key, other)));
  await claimUniqueKeys(trx, dialect, request, id, claimed);
  await dialect.indexResources?.(trx, { kind: "write", orgId, id, attributes, previous: read.attributes });
  return {
    resource: {
      id,
      version: String(version),
      created: read.created,
      lastModified: request.now,
      // Through JSON, as a read would return it, and never the caller's own object.
      attributes: dialect.fromJson(dialect.toJson(attributes)),
    },
  };
}
