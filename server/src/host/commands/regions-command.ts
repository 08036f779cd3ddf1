/**
 * `scimkit regions moves|move|cancel` (issue 30, point 4): moving an organization to another
 * region from a shell, as the operator API's `/regions/moves` does. The command records the move
 * (or its rollback) in this region's database; the host serving it picks the record up within a
 * second and runs the move — the command never copies anything itself, since the freeze of the
 * organization's writes is the serving host's. `--wait` follows the move to its end.
 */
import { isRegionMoveRefusal, type AnalyticsDatabase, type RegionMove, type RegionMoveRefusal } from "@scimkit/server";
import type { Kysely } from "kysely";
import type { HostStore } from "../open-host-store.js";
import type { HostSettings } from "../host-settings.js";
import { FINAL_MOVE_STEPS, loadRegionMoveBook, type RegionMoveBook } from "../regions/region-move-book.js";
import { publicMove, requestCancel, requestMove } from "../regions/region-move-requests.js";
import type { HostCommand } from "./host-command.js";
import { type CliAuditOperation, auditedCommandWrite } from "./audited-command-write.js";
import { failure, noSubcommand, unknownSubcommand, usageError } from "./command-error.js";
import { withCommandStore } from "./open-command-store.js";
import { parseCommandArgs } from "./parse-command-args.js";

const USAGE = [
  "Usage: scimkit regions <subcommand> [options]",
  "",
  "Subcommands:",
  "  moves                    The moves of organizations into and out of this host's region",
  "  move <orgId> --to <region>",
  "                           Move an organization homed here to another region: its writes are refused",
  "                           (503, retried by the identity provider) for the cut-over; then this region",
  "                           answers 421 naming its new base URL, and deletes its data here",
  "  cancel <orgId>           Roll back a move before its switch: writes resume here at once",
  "",
  "Options:",
  "  --to <region>  The region to move to (move)",
  "  --wait         Follow the move until it is over, a line per step (Ctrl-C stops following, not the move)",
  "  --json         JSON on stdout, for scripts",
  "  -h, --help     Show this text",
  "",
  "The store is the one DATABASE_URL names, with the region settings of `scimkit serve`",
  "(SCIMKIT_REGION, SCIMKIT_REGIONS, SCIMKIT_REGION_KEY): the host serving this region runs the move.",
].join("\n");

const OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  to: { type: "string" },
  wait: { type: "boolean" },
} as const;

const ARGUMENTS: Readonly<Record<string, readonly string[]>> = { moves: [], move: ["<orgId>"], cancel: ["<orgId>"] };

/** A move on one line. */
function moveLine(move: RegionMove): string {
  return [
    move.orgId,
    `${move.from} -> ${move.to}`,
    move.side,
    move.step,
    `updated ${move.updatedAt}`,
    ...(move.lastError === undefined ? [] : [`last error: ${move.lastError}`]),
  ].join("  ");
}

/** The book of this region's database, or the usage error that says why this host makes no moves. */
async function bookOf(database: HostStore, settings: HostSettings): Promise<RegionMoveBook> {
  const regions = settings.regions;
  if (regions === undefined) throw usageError("this host runs in one region (SCIMKIT_REGION is unset): there is nowhere to move to");
  if (regions.key === undefined) throw usageError("SCIMKIT_REGIONS names no other region: there is nowhere to move to");
  if (database.sql === undefined) throw usageError("a move copies database rows: DATABASE_URL must be SQLite or PostgreSQL");
  if (settings.workers > 1)
    throw usageError("moves need SCIMKIT_WORKERS=1: the hosts of several workers would each have to freeze the organization's writes");
  return loadRegionMoveBook(database.sql.db as unknown as Kysely<AnalyticsDatabase>, regions.self);
}

/** The move, or the refusal as the command's failure (404, 409; 400 as a usage error). */
function accepted(result: RegionMove | RegionMoveRefusal): RegionMove {
  if (!isRegionMoveRefusal(result)) return result;
  if (result.status === 400) throw usageError(`--${result.detail}`);
  throw failure(result.detail, result.status);
}

/** Prints each step `orgId`'s move reaches until it is over. */
async function follow(book: RegionMoveBook, orgId: string, json: boolean, first: RegionMove): Promise<void> {
  let shown = `${first.step} ${first.lastError ?? ""}`;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await book.refresh();
    const record = book.get(orgId);
    if (record === undefined || record.moveId !== first.moveId) return;
    const move = publicMove(record);
    const now = `${move.step} ${move.lastError ?? ""}`;
    if (now !== shown) {
      console.log(json ? JSON.stringify(move) : moveLine(move));
      shown = now;
    }
    if (FINAL_MOVE_STEPS.has(move.step)) return;
  }
}

export const regionsCommand: HostCommand = {
  name: "regions",
  summary: "Move organizations between regions, and see the moves",
  takesArguments: true,
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, OPTIONS);
    const [subcommand, ...rest] = positionals;
    if (subcommand === undefined) throw noSubcommand();
    const shape = ARGUMENTS[subcommand];
    if (shape === undefined) throw unknownSubcommand(subcommand);
    if (rest.length !== shape.length)
      throw usageError(`regions ${subcommand} takes ${shape.join(" ") || "no argument"}; got ${rest.length}`);
    if (values.to !== undefined && subcommand !== "move") throw usageError(`regions ${subcommand} takes no --to`);
    if (subcommand === "move" && values.to === undefined) throw usageError("regions move needs --to <region>");
    if (values.wait !== undefined && subcommand === "moves") throw usageError("regions moves takes no --wait");
    const json = values.json === true;
    await withCommandStore(async (database, settings) => {
      const book = await bookOf(database, settings);
      if (subcommand === "moves") {
        const moves = book.all().map(publicMove);
        if (json) console.log(JSON.stringify({ data: moves }, null, 2));
        else for (const move of moves) console.log(moveLine(move));
        return;
      }
      const orgId = rest[0] as string;
      const at = new Date().toISOString();
      const operation: CliAuditOperation = subcommand === "move" ? "cli.moveOrganization" : "cli.cancelRegionMove";
      const move = await auditedCommandWrite(
        database.audit,
        { operation, orgId, resourceType: "Organization", resourceId: orgId, status: 200 },
        async () =>
          accepted(
            subcommand === "move"
              ? await requestMove(
                  { book, database: database.sql as NonNullable<HostStore["sql"]>, baseUrls: settings.regions?.baseUrls ?? {} },
                  { orgId, to: values.to as string, requestedBy: "cli", at },
                ).then((result) => (isRegionMoveRefusal(result) ? result : publicMove(result)))
              : await requestCancel(book, orgId, at).then((result) => (isRegionMoveRefusal(result) ? result : publicMove(result))),
          ),
      );
      console.log(
        json
          ? JSON.stringify(move)
          : `${moveLine(move)}\nRecorded: the host serving region ${book.self} ${subcommand === "move" ? "starts the move" : "rolls it back"} within a second.`,
      );
      if (values.wait === true) await follow(book, orgId, json, move);
    });
  },
};
