#!/usr/bin/env node
/**
 * The `scimkit` command (package.json `bin`): `scimkit serve` runs the host server in this very
 * process, so the signals a supervisor sends (systemd, a container runtime) reach the server and
 * not a wrapper that would drop them. `npm start` runs this file from source.
 */
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { backupCommand } from "./commands/backup-command.js";
import { CommandError, EXIT_CODES } from "./commands/command-error.js";
import type { HostCommand } from "./commands/host-command.js";
import { migrateCommand } from "./commands/migrate-command.js";
import { operatorKeyCommand } from "./commands/operator-key-command.js";
import { orgsCommand } from "./commands/orgs-command.js";
import { receiversCommand } from "./commands/receivers-command.js";
import { regionsCommand } from "./commands/regions-command.js";
import { serveCommand } from "./commands/serve-command.js";
import { tokensCommand } from "./commands/tokens-command.js";

const commands: readonly HostCommand[] = [
  serveCommand,
  migrateCommand,
  orgsCommand,
  tokensCommand,
  receiversCommand,
  regionsCommand,
  operatorKeyCommand,
  backupCommand,
];

function usage(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    "Usage: scimkit <command> [options]",
    "",
    "Commands:",
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    "",
    "Options:",
    "  -h, --help     Show this text",
    "  -v, --version  Show the version",
    "",
    "`scimkit <command> --help` shows a command's subcommands and options.",
    "Settings come from the environment (PORT, DATABASE_URL, SCIMKIT_*): see docs/configuration.md.",
  ].join("\n");
}

function version(): string {
  // By package self-reference, from source and from dist/ alike.
  const manifest: unknown = createRequire(import.meta.url)("@scimkit/server/package.json");
  return typeof manifest === "object" && manifest !== null && "version" in manifest ? String(manifest.version) : "unknown";
}

/** Runs a command that parses its own options; a `CommandError` becomes its message and exit code. */
async function runOwnOptions(command: HostCommand, args: readonly string[]): Promise<number | undefined> {
  try {
    await command.run(args);
    return undefined;
  } catch (error) {
    if (!(error instanceof CommandError)) throw error;
    console.error(`scimkit ${command.name}: ${error.message}`);
    if (error.exitCode === EXIT_CODES.usage && command.usage !== undefined) console.error(`\n${command.usage}`);
    return error.exitCode;
  }
}

/** Runs `argv` (the arguments after the script); resolves with the exit code, or undefined while serving. */
async function main(argv: readonly string[]): Promise<number | undefined> {
  // A command with its own usage parses everything after its name (its options are not ours).
  const own = commands.find((candidate) => candidate.name === argv[0] && candidate.usage !== undefined);
  if (own !== undefined) return runOwnOptions(own, argv.slice(1));
  let parsed: ReturnType<
    typeof parseArgs<{
      options: { help: { type: "boolean"; short: "h" }; version: { type: "boolean"; short: "v" } };
      allowPositionals: true;
      strict: true;
    }>
  >;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    console.error(`scimkit: ${error instanceof Error ? error.message : String(error)}\n\n${usage()}`);
    return EXIT_CODES.usage;
  }
  if (parsed.values.version) {
    console.log(version());
    return EXIT_CODES.done;
  }
  const [name, ...rest] = parsed.positionals;
  if (parsed.values.help) {
    console.log(usage());
    return EXIT_CODES.done;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (command === undefined) {
    console.error(`${name === undefined ? "scimkit: no command given" : `scimkit: unknown command ${JSON.stringify(name)}`}\n\n${usage()}`);
    return EXIT_CODES.usage;
  }
  if (rest.length > 0 && command.takesArguments !== true) {
    console.error(`scimkit ${command.name}: unexpected argument ${JSON.stringify(rest[0])}\n\n${usage()}`);
    return EXIT_CODES.usage;
  }
  await command.run(rest);
  return undefined;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`scimkit: ${error instanceof Error ? error.message : String(error)}`);
    // A 503 from an unreachable database says what the client should do; the operator needs the cause.
    if (error instanceof Error && error.cause !== undefined)
      console.error("cause:", error.cause instanceof Error ? error.cause.message : error.cause);
    process.exit(EXIT_CODES.failure);
  },
);
