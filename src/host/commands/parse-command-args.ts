/**
 * `parseArgs` for a command's own options, strict, with every parse error a usage error (exit 2)
 * rather than a crash.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { usageError } from "./command-error.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

export function parseCommandArgs<T extends Options>(args: readonly string[], options: T) {
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
