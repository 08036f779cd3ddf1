/**
 * Reading the host's variables one at a time while collecting every mistake: a reader holds the
 * environment and the errors and warnings found so far, and each function reads one kind of value
 * from it — reporting a bad one with the variable, what it held and what it takes, and carrying on
 * with the default so the other variables are still checked.
 */
import type { HostVariable } from "./host-variables.js";

/** The environment being read and what was found wrong with it so far. */
export interface SettingReader {
  /** The environment (`process.env`). */
  readonly env: NodeJS.ProcessEnv;
  /** Mistakes that stop the host, in the order the variables are read. */
  readonly errors: string[];
  /** Settings that are ignored or look like typos; the host starts anyway. */
  readonly warnings: string[];
}

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;
const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A reader of `env` that has found nothing wrong yet. */
export function settingReader(env: NodeJS.ProcessEnv): SettingReader {
  return { env, errors: [], warnings: [] };
}

/** The variable's value, trimmed; undefined when unset or blank. */
export function raw(reader: SettingReader, name: HostVariable): string | undefined {
  const value = reader.env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** Reports that `name` held `value` where it takes `expected`. */
export function fail(reader: SettingReader, name: string, value: string, expected: string): undefined {
  reader.errors.push(`${name}=${JSON.stringify(value)}: expected ${expected}`);
  return undefined;
}

/** A whole number from `min` to `max`; `fallback` when unset or bad. */
export function whole(reader: SettingReader, name: HostVariable, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = raw(reader, name);
  if (text === undefined) return fallback;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    fail(
      reader,
      name,
      text,
      max === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`,
    );
    return fallback;
  }
  return value;
}

/** A size in bytes, with an optional unit (b, kb, mb, gb); `fallback` when unset or bad. */
export function size(reader: SettingReader, name: HostVariable, fallback: number): number {
  const text = raw(reader, name);
  if (text === undefined) return fallback;
  const match = SIZE.exec(text);
  const bytes = match ? Math.floor(Number(match[1]) * (UNITS[(match[2] ?? "b").toLowerCase()] ?? 1)) : 0;
  if (bytes < 1) {
    fail(reader, name, text, 'a size in bytes, or with a unit such as "512kb" or "2mb" (b, kb, mb, gb)');
    return fallback;
  }
  return bytes;
}

/** A yes or no: `0`/`false` or `1`/`true`, any case; `fallback` when unset or bad. */
export function flag(reader: SettingReader, name: HostVariable, fallback: boolean, meaning: string): boolean {
  const text = raw(reader, name);
  if (text === undefined) return fallback;
  const lower = text.toLowerCase();
  if (["0", "false"].includes(lower)) return false;
  if (["1", "true"].includes(lower)) return true;
  fail(reader, name, text, meaning);
  return fallback;
}
