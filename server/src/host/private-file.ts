/**
 * The host's files on disk hold every organization's users and tokens' hashes: the SQLite database
 * (and the `-wal` and `-shm` files SQLite makes beside it, which take the database file's mode) and
 * `scimkit backup` copies. They are created readable by the host's own user only (0600), in a
 * directory only it can list (0700) when the host makes that directory; SQLite and Node would
 * otherwise create them 0644, readable by every local user.
 */
import { closeSync, constants, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

/** Owner read and write only. */
export const PRIVATE_FILE_MODE = 0o600;

/** Owner only, for the directories the host creates. */
export const PRIVATE_DIRECTORY_MODE = 0o700;

/**
 * Creates `path` empty with mode 0600 (and its missing parent directories with 0700) unless it
 * exists already, which is left as it is: an operator may have chosen its mode. SQLite takes an
 * empty file for a new database, and gives its journal, `-wal` and `-shm` files the same mode.
 */
export function ensurePrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  let descriptor: number;
  try {
    // O_EXCL: never truncate, nor change the mode of, a file someone else created meanwhile.
    descriptor = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
    throw error;
  }
  closeSync(descriptor);
}
