/**
 * Why a command stopped, and with which exit code: 2 for a usage error (the command line is
 * wrong; the command's usage follows the message), 1 for a failure (the command line was right
 * but the thing it names is not there, or is taken). Thrown, so a command reads top to bottom.
 */
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

/** The command line is wrong: exit code 2, with the command's usage. */
export const usageError = (message: string): CommandError => new CommandError(message, 2);

/** What the command names is not there (or, with 409, is taken or cannot change here): exit code 1. */
export const failure = (message: string, status: 404 | 409 = 404): CommandError => new CommandError(message, 1, status);
