/**
 * The store of `DATABASE_URL` for a command that changes what a host serves (orgs, tokens, the
 * operator key): the very database the hosts use, so a change takes effect on their next request.
 */
import type { HostSettings } from "../host-settings.js";
import { openHostStore, type HostStore } from "../open-host-store.js";
import { usageError } from "./command-error.js";
import { readSettingsOrExit } from "./read-settings-or-exit.js";

export async function openCommandStore(settings: HostSettings = readSettingsOrExit(process.env)): Promise<HostStore> {
  // A memory store lives in one process: what this one changed would be gone when it exits.
  if (settings.databaseUrl?.trim() === "memory:")
    throw usageError("DATABASE_URL=memory: keeps nothing between processes; point DATABASE_URL at the hosts' database");
  return openHostStore(settings.databaseUrl);
}

/** Runs `work` on the store of `DATABASE_URL`, closing it afterwards whatever happens. */
export async function withCommandStore<T>(work: (database: HostStore, settings: HostSettings) => Promise<T>): Promise<T> {
  const settings = readSettingsOrExit(process.env);
  const database = await openCommandStore(settings);
  try {
    return await work(database, settings);
  } finally {
    await database.close();
  }
}
