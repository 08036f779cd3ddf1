/**
 * `parseArgs` for a command's own options, strict, with every parse error a usage error (exit 2)
 * rather than a crash.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { usageError } from "./command-error.js";

/** A command's options, as `parseArgs` takes them. */
export type CommandOptions = NonNullable<ParseArgsConfig["options"]>;

/** What `parseCommandArgs` finds: the options' values and the positional arguments. */
export type ParsedCommandArgs<T extends CommandOptions> = ReturnType<
  typeof parseArgs<{ options: T; allowPositionals: true; strict: true }>
>;

export function parseCommandArgs<T extends CommandOptions>(args: readonly string[], options: T): ParsedCommandArgs<T> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error));
  }
}

/** An ISO 8601 time in the future, as the operator API requires of `expiresAt`. */
export function futureTime(value: string | undefined, option: string): string | undefined {
  if (value === undefined) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw usageError(`${option} ${JSON.stringify(value)} is not an ISO 8601 time, e.g. 2030-01-31T00:00:00Z`);
  if (!(at > Date.now())) throw usageError(`${option} must be in the future: an expired token is of no use`);
  return new Date(at).toISOString();
}
