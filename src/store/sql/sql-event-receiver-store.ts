/**
 * The SQL `EventReceiverStore` and `SigningKeyRepository` over `scimkit_event_receivers` and
 * `scimkit_event_keys` (migrations 14 and 15), for every process of a deployment to share.
 */
import { sql, type Kysely } from "kysely";
import { v7 as uuidv7 } from "uuid";
import type {
  DeliveryFailure,
  EventReceiver,
  EventReceiverStore,
  RetiredSigningKey,
  SigningKeyRepository,
  StoredSigningKey,
} from "../../events/event-receiver-store.js";
import { boundedDeliveryFailure } from "../../events/bounded-delivery-failure.js";
import { isSecurityEventUri, type SecurityEventForm } from "../../events/security-event-uris.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { lockRows } from "./lock-rows.js";
import type { EventReceiversTable, SqlStoreDatabase } from "./sql-tables.js";

type ReceiverRow = Omit<EventReceiversTable, "position" | "next_attempt_ms" | "delivered" | "rejected" | "lease_until_ms" | "dropped"> & {
  readonly position: number | string;
  readonly dropped: number | string;
  readonly next_attempt_ms: number | string;
  readonly delivered: number | string;
  readonly rejected: number | string;
  readonly lease_until_ms: number | string;
};

function parseFailure(text: string | null): DeliveryFailure | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as DeliveryFailure;
  } catch {
    return undefined;
  }
}

function receiverOf(row: ReceiverRow): EventReceiver {
  const events = (JSON.parse(row.events) as unknown[]).filter((uri): uri is string => typeof uri === "string").filter(isSecurityEventUri);
  const nextAttemptMs = Number(row.next_attempt_ms);
  const lastError = parseFailure(row.last_error);
  return {
    orgId: row.org_id,
    id: row.id,
    url: row.url,
    delivery: row.delivery === "poll" ? "poll" : "push",
    events,
    form: row.form as SecurityEventForm,
    audience: row.audience,
    ...(row.authorization === null ? {} : { authorization: row.authorization }),
    ...(row.label === null ? {} : { label: row.label }),
    createdAt: row.created_at,
    position: Number(row.position),
    attempts: Number(row.attempts),
    ...(nextAttemptMs > 0 ? { nextAttemptAt: new Date(nextAttemptMs).toISOString() } : {}),
    ...(lastError ? { lastError } : {}),
    ...(row.last_delivered_at === null ? {} : { lastDeliveredAt: row.last_delivered_at }),
    delivered: Number(row.delivered),
    rejected: Number(row.rejected),
    dropped: Number(row.dropped),
  };
}

/** Options of `sqlEventReceiverStore`. */
export interface SqlEventReceiverStoreOptions {
  /** The clock. Default: the system's. */
  readonly now?: () => string;
}

/**
 * The receivers of the SQL store's database `db` (`SqlStore.db`, `SqlStore.dialect`).
 *
 * @example const receivers = sqlEventReceiverStore(store.db, store.dialect);
 */
export function sqlEventReceiverStore(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  options: SqlEventReceiverStoreOptions = {},
): EventReceiverStore {
  const now = options.now ?? (() => new Date().toISOString());
  const selectReceivers = (trx: Kysely<SqlStoreDatabase>) => trx.selectFrom("scimkit_event_receivers").selectAll();
  return {
    async add(orgId, input, position) {
      const id = uuidv7();
      await db
        .insertInto("scimkit_event_receivers")
        .values({
          org_id: orgId,
          id,
          url: input.url,
          delivery: input.delivery ?? "push",
          events: JSON.stringify(input.events ?? []),
          form: input.form ?? "notice",
          audience: input.audience ?? input.url,
          authorization: input.authorization ?? null,
          label: input.label ?? null,
          created_at: now(),
          position,
          attempts: 0,
          next_attempt_ms: 0,
          last_error: null,
          last_delivered_at: null,
          delivered: 0,
          rejected: 0,
          lease_until_ms: 0,
          dropped: 0,
        })
        .execute();
      const added = await selectReceivers(db).where("org_id", "=", orgId).where("id", "=", id).executeTakeFirstOrThrow();
      return receiverOf(added);
    },
    async list(orgId) {
      return (await selectReceivers(db).where("org_id", "=", orgId).orderBy("id").execute()).map(receiverOf);
    },
    async get(orgId, id) {
      const row = await selectReceivers(db).where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
      return row ? receiverOf(row) : undefined;
    },
    async remove(orgId, id) {
      const result = await db.deleteFrom("scimkit_event_receivers").where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    claimDue({ now: at, leaseUntil, limit, after }) {
      const atMs = Date.parse(at);
      return dialect.writeTransaction(db, async (trx) => {
        const rows = await lockRows(
          selectReceivers(trx)
            .where("delivery", "=", "push")
            .where("lease_until_ms", "<", atMs)
            .where("next_attempt_ms", "<=", atMs)
            .$if(after !== undefined, (query) =>
              query.where((eb) =>
                eb.or([
                  eb("org_id", ">", after?.orgId ?? ""),
                  eb.and([eb("org_id", "=", after?.orgId ?? ""), eb("id", ">", after?.id ?? "")]),
                ]),
              ),
            )
            // Only receivers with something to deliver: an idle one is never leased, so a pass
            // costs nothing for it and no write is made to say it is idle.
            .where(({ exists, selectFrom }) =>
              exists(
                selectFrom("scimkit_events")
                  .select(sql<number>`1`.as("one"))
                  .whereRef("scimkit_events.org_id", "=", "scimkit_event_receivers.org_id")
                  .whereRef("scimkit_events.sequence", ">", "scimkit_event_receivers.position"),
              ),
            )
            .orderBy("org_id")
            .orderBy("id")
            .limit(Math.max(1, limit)),
          dialect,
          "update",
        ).execute();
        for (const row of rows) {
          await trx
            .updateTable("scimkit_event_receivers")
            .set({ lease_until_ms: Date.parse(leaseUntil) })
            .where("org_id", "=", row.org_id)
            .where("id", "=", row.id)
            .execute();
        }
        return rows.map(receiverOf);
      });
    },
    async saveProgress(orgId, id, progress) {
      await db
        .updateTable("scimkit_event_receivers")
        .set({
          // Never back: a `skip` may have moved the receiver on while this deliverer pushed.
          position: sql<number>`case when position > ${progress.position} then position else ${progress.position} end`,
          attempts: progress.attempts,
          next_attempt_ms: progress.nextAttemptAt === undefined ? 0 : Date.parse(progress.nextAttemptAt),
          delivered: sql<number>`delivered + ${progress.delivered}`,
          rejected: sql<number>`rejected + ${progress.rejected}`,
          lease_until_ms: progress.leaseUntil === undefined ? 0 : Date.parse(progress.leaseUntil),
          ...(progress.lastError === undefined ? {} : { last_error: JSON.stringify(boundedDeliveryFailure(progress.lastError)) }),
          ...(progress.lastDeliveredAt === undefined ? {} : { last_delivered_at: progress.lastDeliveredAt }),
        })
        .where("org_id", "=", orgId)
        .where("id", "=", id)
        .execute();
    },
    async skip(orgId, id, { through, failure }) {
      await db
        .updateTable("scimkit_event_receivers")
        .set({
          dropped: sql<number>`dropped + (${through} - position)`,
          position: through,
          last_error: JSON.stringify(boundedDeliveryFailure(failure)),
        })
        .where("org_id", "=", orgId)
        .where("id", "=", id)
        .where("position", "<", through)
        .execute();
    },
  };
}

function retiredKeysOf(text: string | null): RetiredSigningKey[] {
  if (text === null) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as RetiredSigningKey[]) : [];
  } catch {
    return [];
  }
}

/**
 * The SET signing keys in the SQL store's database: one row per organization holding its signing
 * key and, since migration 15, the public halves of the keys it replaced. A rotation is one
 * `UPDATE … WHERE kid = <the key it read>`, atomic on SQLite and PostgreSQL alike: of two that
 * race, the second changes nothing and reads the first's key. The private keys are stored as JWK
 * text: protect the database as you protect the keys.
 */
export function sqlSigningKeyRepository(db: Kysely<SqlStoreDatabase>): SigningKeyRepository {
  const get = async (orgId: string): Promise<StoredSigningKey | undefined> => {
    const row = await db.selectFrom("scimkit_event_keys").selectAll().where("org_id", "=", orgId).executeTakeFirst();
    if (!row) return undefined;
    const retired = retiredKeysOf(row.retired_keys);
    return {
      orgId: row.org_id,
      kid: row.kid,
      privateJwk: row.private_jwk,
      publicJwk: row.public_jwk,
      createdAt: row.created_at,
      ...(retired.length > 0 ? { retired } : {}),
    };
  };
  const columns = (key: StoredSigningKey) => ({
    kid: key.kid,
    private_jwk: key.privateJwk,
    public_jwk: key.publicJwk,
    created_at: key.createdAt,
    retired_keys: key.retired && key.retired.length > 0 ? JSON.stringify(key.retired) : null,
  });
  return {
    get,
    async addIfAbsent(key) {
      await db
        .insertInto("scimkit_event_keys")
        .values({ org_id: key.orgId, ...columns(key) })
        .onConflict((conflict) => conflict.column("org_id").doNothing())
        .execute();
      const kept = await get(key.orgId);
      if (!kept) throw new Error(`scimkit: the signing key of ${JSON.stringify(key.orgId)} was not stored`);
      return kept;
    },
    async replaceIfCurrent(currentKid, next) {
      // Every rotation changes `kid`, so a row whose kid is still `currentKid` is the row the caller
      // read, `retired_keys` included: nothing of another rotation is overwritten.
      await db
        .updateTable("scimkit_event_keys")
        .set(columns(next))
        .where("org_id", "=", next.orgId)
        .where("kid", "=", currentKid)
        .execute();
      return get(next.orgId);
    },
  };
}
