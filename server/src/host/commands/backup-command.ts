/**
 * `scimkit backup <file>`: a consistent copy of the SQLite database while hosts keep serving
 * (SQLite's online backup, through better-sqlite3's `backup()`), on a connection of its own: the
 * store's statements run elsewhere, and a read-only connection cannot change what it copies.
 * PostgreSQL has its own tool for this, so for it the command prints the `pg_dump` to run.
 */
import { existsSync, rmSync } from "node:fs";
import { sqlitePathOf } from "../open-host-store.js";
import { ensurePrivateFile } from "../private-file.js";
import type { HostCommand } from "./host-command.js";
import { failure, usageError } from "./command-error.js";
import { parseCommandArgs } from "./parse-command-args.js";
import { readSettingsOrExit } from "./read-settings-or-exit.js";

const USAGE = [
  "Usage: scimkit backup <file> [--force]",
  "",
  "Copies the SQLite database DATABASE_URL names to <file> while hosts keep serving (SQLite's",
  "online backup); the copy opens as DATABASE_URL=sqlite:<file>. On PostgreSQL it prints the",
  "pg_dump command to run instead.",
  "",
  "Options:",
  "  --force     Overwrite <file> if it exists",
  "  --json      One JSON object on stdout, for scripts",
  "  -h, --help  Show this text",
].join("\n");

/** A word as a shell reads it: quoted unless it is plainly safe. */
const shellWord = (word: string): string => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** The `pg_dump` of the database (and schema) `url` names, never with its password. */
function pgDumpCommand(url: string, file: string): string {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema");
  const words = [
    "pg_dump",
    `--host=${decodeURIComponent(parsed.hostname)}`,
    `--port=${parsed.port === "" ? "5432" : parsed.port}`,
    ...(parsed.username === "" ? [] : [`--username=${decodeURIComponent(parsed.username)}`]),
    `--dbname=${decodeURIComponent(parsed.pathname.slice(1))}`,
    ...(schema === null ? [] : [`--schema=${schema}`]),
    "--format=custom",
    `--file=${file}`,
  ];
  return words.map(shellWord).join(" ");
}

/** better-sqlite3's `Database` constructor: an optional peer dependency, present wherever SQLite is used. */
async function sqliteDatabase(): Promise<typeof import("better-sqlite3")> {
  const loaded = (await import("better-sqlite3")) as
    | typeof import("better-sqlite3")
    | { readonly default: typeof import("better-sqlite3") };
  return "default" in loaded ? loaded.default : loaded;
}

export const backupCommand: HostCommand = {
  name: "backup",
  summary: "<file>: an online copy of the SQLite database (PostgreSQL: says which pg_dump to run)",
  takesArguments: true,
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, {
      force: { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    });
    if (values.help) {
      console.log(USAGE);
      return;
    }
    if (positionals.length !== 1) throw usageError(positionals.length === 0 ? "no <file> given" : "takes one <file>");
    const [file = ""] = positionals;
    const { databaseUrl } = readSettingsOrExit(process.env);
    const url = databaseUrl?.trim() ?? "";
    if (url === "memory:") throw usageError("DATABASE_URL=memory: keeps nothing on disk: there is nothing to back up");
    if (url.startsWith("postgres://") || url.startsWith("postgresql://"))
      throw usageError(
        `PostgreSQL is backed up with its own tool; run (with the password in PGPASSWORD or ~/.pgpass):\n  ${pgDumpCommand(url, file)}`,
      );
    const source = sqlitePathOf(url);
    if (source === undefined) throw usageError(`DATABASE_URL names no store this command knows`);
    if (!existsSync(source)) throw failure(`there is no database at ${source}`);
    if (existsSync(file)) {
      if (values.force !== true) throw failure(`${file} exists; add --force to overwrite it`);
      rmSync(file);
    }
    // The copy holds what the database does: readable by this user only, as the database is.
    ensurePrivateFile(file);
    const Database = await sqliteDatabase();
    const database = new Database(source, { readonly: true, fileMustExist: true });
    try {
      const { totalPages } = await database.backup(file);
      if (values.json === true) console.log(JSON.stringify({ backup: file, source, pages: totalPages }, null, 2));
      else console.log(`SQLite ${source} backed up to ${file} (${totalPages} pages); it opens as DATABASE_URL=sqlite:${file}`);
    } finally {
      database.close();
    }
  },
};
