/**
 * The target's half of a move (issue 30, point 4), at `/regions/v1/moves/{orgId}`: the source's
 * host, presenting `SCIMKIT_REGION_KEY`, announces the move, sends the organization's rows a page
 * at a time, asks for the digest of what arrived, and commits it — or drops it. Until the commit
 * the organization is `arriving` here: its rows are stored, none is served (SCIM and OAuth answer
 * 421 naming the source), and this region's directory feed does not list it.
 *
 * What the source can make this host store or compute is bounded before the work: a page is at
 * most `MAX_MOVE_PAGE_BYTES` of JSON (refused before it is parsed) and `MAX_MOVE_PAGE_ROWS` rows;
 * every row names only columns this database has, belongs to the organization of the path (its
 * `org_id`, or its operation), and holds scalars, or a JSON document in a JSON column; an
 * organization already homed here is never overwritten (409).
 */
import { sql } from "kysely";
import type { ScimObject } from "scimkit/core";
import express, { type NextFunction, type Request, type Response, Router } from "express";
import type { AuditTrail } from "scimkit/audit";
import {
  deleteOrganizationTables,
  digestOrganization,
  type OrganizationDatabase,
  type OrganizationRow,
  organizationTable,
  tableColumns,
  upsertOrganizationRows,
} from "./organization-tables.js";
import type { RegionMoveBook } from "./region-move-book.js";
import { requireRegionKey } from "./region-key.js";

/** The most bytes of one page of rows. */
export const MAX_MOVE_PAGE_BYTES = 8 * 1024 * 1024;
/** The most rows of one page. */
export const MAX_MOVE_PAGE_ROWS = 500;

const MOVE_ID = /^[A-Za-z0-9-]{1,64}$/;
// What an organization id can be (the analytics interface's `OrganizationId`): no NUL, no lone surrogate, 256 at most.
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing NUL is the point (PostgreSQL text cannot hold it).
const ORGANIZATION_ID = /^[^\u0000\p{Cs}]{1,256}$/u;

/** A refusal of the channel: a status and a `detail` for the source's log. */
class ChannelRefusal extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

function refuse(status: number, detail: string): never {
  throw new ChannelRefusal(status, detail);
}

/** Each row checked against the table, the organization and this database's columns. */
async function checkedRows(
  tableName: unknown,
  rows: unknown,
  orgId: string,
  columns: (table: string) => Promise<ReadonlySet<string>>,
): Promise<{ readonly table: NonNullable<ReturnType<typeof organizationTable>>; readonly rows: OrganizationRow[] }> {
  const table = typeof tableName === "string" ? organizationTable(tableName) : undefined;
  if (table === undefined) refuse(400, "table is not one of an organization's tables");
  if (!Array.isArray(rows) || rows.length === 0 || rows.length > MAX_MOVE_PAGE_ROWS) {
    refuse(400, `rows is 1 to ${MAX_MOVE_PAGE_ROWS} rows`);
  }
  const known = await columns(table.name);
  const json = new Set(table.json ?? []);
  let names: string | undefined;
  const checked = rows.map((row: unknown): OrganizationRow => {
    if (typeof row !== "object" || row === null || Array.isArray(row)) refuse(400, "a row is not an object");
    const record = row as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    const joined = keys.join(",");
    if (names !== undefined && joined !== names) refuse(400, "the rows of a page have different columns");
    names = joined;
    for (const key of keys) {
      if (!known.has(key)) refuse(400, `${table.name} has no column ${key}`);
      const value = record[key];
      const scalar = value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";
      if (!scalar && !(json.has(key) && typeof value === "object")) refuse(400, `${table.name}.${key} holds a value of the wrong kind`);
    }
    for (const key of table.key) if (record[key] === undefined || record[key] === null) refuse(400, `a row of ${table.name} lacks ${key}`);
    if (table.scope === "org_id" && record["org_id"] !== orgId) refuse(400, `a row of ${table.name} is not of organization ${orgId}`);
    if (table.scope === "id" && (record["id"] !== orgId || (record["parent_id"] ?? null) !== null)) {
      refuse(400, `the organization row is not ${orgId}'s, or has a parent`);
    }
    return record;
  });
  return { table, rows: checked };
}

/** The channel's router, for the host to mount at `/regions/v1/moves`. */
export function regionMoveChannel(options: {
  readonly key: string;
  readonly book: RegionMoveBook;
  readonly database: OrganizationDatabase;
  /** Every region's base URL: a move comes from one of the others. */
  readonly baseUrls: Readonly<Record<string, string>>;
  /** Whether `orgId` is an organization of this database (a row of `scimkit_organizations`). */
  readonly holds: (orgId: string) => Promise<boolean>;
  /** Where the move is recorded (the store's trail), once, though a kill makes the source commit again. */
  readonly audit?: AuditTrail;
  readonly now?: () => Date;
}): Router {
  const { book, database } = options;
  const now = options.now ?? (() => new Date());
  const columnsOf = (table: string): Promise<ReadonlySet<string>> => tableColumns(database, table);
  /** The arriving move of the path's organization with the request's move id. */
  const arriving = (orgId: string, moveId: unknown) => {
    const record = book.get(orgId);
    if (record === undefined || record.side !== "target" || record.moveId !== moveId)
      refuse(404, `no move ${String(moveId)} of ${orgId} arrives here`);
    return record;
  };
  const router = Router();
  router.use(requireRegionKey(options.key));
  router.use(express.json({ limit: MAX_MOVE_PAGE_BYTES }));
  router.param("orgId", (_request, _response, next, orgId: string) => {
    next(ORGANIZATION_ID.test(orgId) ? undefined : new ChannelRefusal(400, "not an organization id"));
  });

  router.post("/:orgId/begin", async (request: Request, response: Response) => {
    const orgId = request.params["orgId"] as string;
    const { moveId, from } = (request.body ?? {}) as { moveId?: unknown; from?: unknown };
    if (typeof moveId !== "string" || !MOVE_ID.test(moveId)) refuse(400, "moveId is 1 to 64 letters, digits or hyphens");
    if (typeof from !== "string" || from === book.self || options.baseUrls[from] === undefined)
      refuse(400, "from is another region of the service");
    const known = book.get(orgId);
    if (known?.side === "target" && known.moveId === moveId) {
      response.json({ step: known.step });
      return;
    }
    const arrivingOther = known?.side === "target" && known.step === "arriving";
    if (!arrivingOther && (await options.holds(orgId))) refuse(409, `organization ${orgId} is homed in region ${book.self} already`);
    // An earlier attempt the source gave up: its rows go before this one's arrive.
    if (arrivingOther) await deleteOrganizationTables(database, orgId);
    const at = now().toISOString();
    await book.put({ orgId, moveId, side: "target", from, to: book.self, step: "arriving", startedAt: at, updatedAt: at });
    response.status(201).json({ step: "arriving" });
  });

  router.post("/:orgId/rows", async (request: Request, response: Response) => {
    const orgId = request.params["orgId"] as string;
    const body = (request.body ?? {}) as { moveId?: unknown; table?: unknown; rows?: unknown };
    const record = arriving(orgId, body.moveId);
    if (record.step !== "arriving") refuse(409, `organization ${orgId} is homed here now: its rows are its own`);
    const { table, rows } = await checkedRows(body.table, body.rows, orgId, columnsOf);
    await database.dialect.writeTransaction(database.db, async (trx) => {
      if (table.scope === "operation") {
        // A report row belongs to an operation of this organization, copied before it.
        const operations = [...new Set(rows.map((row) => String(row["operation_id"])))];
        const found = await sql`select id from scimkit_operations where org_id = ${orgId} and id in (${sql.join(operations)})`.execute(trx);
        if (found.rows.length !== operations.length) refuse(400, `a report row is not of an operation of ${orgId}`);
      }
      await upsertOrganizationRows(trx, database, table, rows);
      if (table.name === "scimkit_resources" && database.dialect.indexResources) {
        for (const row of rows) {
          await database.dialect.indexResources(trx, {
            kind: "write",
            orgId,
            id: String(row["id"]),
            attributes: row["attributes"] as ScimObject,
          });
        }
      }
    });
    response.json({ rows: rows.length });
  });

  router.get("/:orgId/digest", async (request: Request, response: Response) => {
    const orgId = request.params["orgId"] as string;
    arriving(orgId, request.query["moveId"]);
    response.json({ tables: await digestOrganization(database, orgId) });
  });

  router.post("/:orgId/commit", async (request: Request, response: Response) => {
    const orgId = request.params["orgId"] as string;
    const record = arriving(orgId, (request.body as { moveId?: unknown } | undefined)?.moveId);
    if (record.step === "arriving") {
      if (!(await options.holds(orgId))) refuse(409, `organization ${orgId}'s own row has not arrived`);
      const at = now().toISOString();
      const kept = (await options.audit?.list(orgId, { limit: 20 })) ?? [];
      if (!kept.some((entry) => entry.operation === "region.moveIn" && entry.at >= record.startedAt))
        await options.audit?.record({
          orgId,
          operation: "region.moveIn",
          resourceType: "Organization",
          resourceId: orgId,
          at,
          outcome: "success",
          status: 200,
          via: "region",
          target: options.baseUrls[record.from] ?? record.from,
        });
      await book.put({ ...record, step: "home", updatedAt: at });
    }
    response.json({ step: "home" });
  });

  router.delete("/:orgId", async (request: Request, response: Response) => {
    const orgId = request.params["orgId"] as string;
    const record = book.get(orgId);
    if (record?.side !== "target" || record.moveId !== request.query["moveId"]) {
      // Already dropped (a rollback resumed after a kill), or never begun: nothing to drop.
      response.status(204).end();
      return;
    }
    if (record.step !== "arriving") refuse(409, `organization ${orgId} is homed here now: a committed move is not rolled back`);
    await deleteOrganizationTables(database, orgId);
    if (request.query["keep"] === "move") {
      // Copying again after a digest that differed: the move stays, its rows go.
      response.status(204).end();
      return;
    }
    await book.remove(orgId);
    response.status(204).end();
  });

  router.use((error: unknown, _request: Request, response: Response, next: NextFunction) => {
    if (error instanceof ChannelRefusal) {
      response.status(error.status).json({ status: error.status, detail: error.message });
      return;
    }
    const status = (error as { status?: unknown; type?: unknown }).status;
    // express.json's own: too large (413) or not JSON (400).
    if (typeof status === "number" && status >= 400 && status < 500) {
      response.status(status).json({ status, detail: error instanceof Error ? error.message : "bad request" });
      return;
    }
    next(error);
  });
  return router;
}
