/** One `scimkit <command>`: its own file under `commands/`, listed in `cli.ts`. */
export interface HostCommand {
  readonly name: string;
  /** One line for `scimkit --help`. */
  readonly summary: string;
  /** Whether it takes arguments after its name; without, `scimkit <name> extra` is a usage error. */
  readonly takesArguments?: boolean;
  /**
   * Its own usage (subcommands and options), for `scimkit <name> --help` and after a usage error.
   * A command with one parses its own options, `--help` included.
   */
  readonly usage?: string;
  /**
   * Runs the command with the arguments after its name. A command that serves keeps the process
   * alive after it resolves; one that is done sets `process.exitCode` or leaves it 0.
   */
  run(args: readonly string[]): Promise<void>;
}
