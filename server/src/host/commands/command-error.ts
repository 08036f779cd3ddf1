/**
 * The registry of the scimkit CLI's errors: `EXIT_CODES` names every exit code the command ends
 * with, `COMMAND_ERRORS` every way a command stops short — its exit code, and for a failed write
 * the status the operator API answers the same failure with, for the audit trail — and
 * `commandError` builds one (`usageError` and `failure` for short, and the messages several
 * commands share). `CommandError` carries it, thrown so a command reads top to bottom; nothing
 * else constructs one (server/test/error-registries.test.ts holds the service to that). One place
 * renders it: `cli.ts` prints `scimkit <command>: <message>` on stderr, the command's usage after
 * a usage error, and exits with its code.
 *
 * The CLI's other ends, not `CommandError`s: `cli.ts` answers its own command line's mistakes
 * (no command, an unknown one) with the global usage and `EXIT_CODES.usage`, and anything thrown
 * unexpectedly with its message (and cause) and `EXIT_CODES.failure`;
 * `read-settings-or-exit.ts` lists every wrong setting and exits with `EXIT_CODES.usage`.
 */

/** The exit codes of `scimkit`. */
export const EXIT_CODES = {
  /** The command did what it was asked (a server stops with it after a clean shutdown). */
  done: 0,
  /** The command line was right but the command failed: what it names is missing or taken, or something broke. */
  failure: 1,
  /** The command line (or a setting) is wrong: the message says what, the usage follows. */
  usage: 2,
} as const;

/** A way a command stops short: its exit code, and the operator API's status for the same failure. */
export interface CommandErrorDefinition {
  readonly exitCode: typeof EXIT_CODES.failure | typeof EXIT_CODES.usage;
  /** For the audit trail of a failed write; absent for a usage error (the trail records 400). */
  readonly status?: 404 | 409;
}

const definitions = {
  /** The command line is wrong; the command's usage follows the message. */
  usage: { exitCode: EXIT_CODES.usage },
  /** What the command names is not there (the API's 404). */
  notFound: { exitCode: EXIT_CODES.failure, status: 404 },
  /** What the command names is taken, or cannot change here (the API's 409). */
  conflict: { exitCode: EXIT_CODES.failure, status: 409 },
} as const satisfies Record<string, CommandErrorDefinition>;

/** The name of a command error of the registry. */
export type CommandErrorCode = keyof typeof definitions;

/** Every way a command stops short, by code: the one place to find them. */
export const COMMAND_ERRORS: Readonly<Record<CommandErrorCode, CommandErrorDefinition>> = definitions;

/** Why a command stopped, and with which exit code. */
export class CommandError extends Error {
  readonly exitCode: 1 | 2;
  /** For the audit trail of a failed write: the status the operator API answers the same failure with. */
  readonly status: 404 | 409 | undefined;

  constructor(message: string, exitCode: 1 | 2, status?: 404 | 409) {
    super(message);
    this.name = "CommandError";
    this.exitCode = exitCode;
    this.status = status;
  }
}

/** The command error `code` of the registry, with `message` for the operator (printed after `scimkit <command>: `). */
export function commandError(code: CommandErrorCode, message: string): CommandError {
  const { exitCode, status } = COMMAND_ERRORS[code];
  return new CommandError(message, exitCode, status);
}

/** The command line is wrong: exit code 2, with the command's usage. */
export const usageError = (message: string): CommandError => commandError("usage", message);

/** What the command names is not there (or, with 409, is taken or cannot change here): exit code 1. */
export const failure = (message: string, status: 404 | 409 = 404): CommandError =>
  commandError(status === 409 ? "conflict" : "notFound", message);

/** A command with subcommands run without one. */
export const noSubcommand = (): CommandError => usageError("no subcommand given");

/** A command with subcommands run with one it does not have. */
export const unknownSubcommand = (name: string): CommandError => usageError(`unknown subcommand ${JSON.stringify(name)}`);

/** An organization id that names none, for a command about one organization's tokens or receivers. */
export const noSuchOrganization = (orgId: string): CommandError =>
  failure(`there is no organization ${JSON.stringify(orgId)}; \`scimkit orgs list\` shows them`);
