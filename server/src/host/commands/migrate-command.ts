/**
 * `scimkit migrate`: brings the database `DATABASE_URL` names up to date and exits — the deploy
 * step that runs once before the new hosts start, so they need not race to migrate. (`serve`
 * migrates on start too; both are safe to run from several processes at once.)
 */
import { openHostStore } from "../open-host-store.js";
import type { HostCommand } from "./host-command.js";
import { readSettingsOrExit } from "./read-settings-or-exit.js";

export const migrateCommand: HostCommand = {
  name: "migrate",
  summary: "Apply the store's migrations to DATABASE_URL and exit",
  async run() {
    const settings = readSettingsOrExit(process.env);
    const database = await openHostStore(settings.databaseUrl, { migrate: false });
    try {
      const applied = Object.entries(await database.migrate()).filter(([, versions]) => versions.length > 0);
      console.log(
        applied.length === 0
          ? `${database.description}: up to date, no migration applied`
          : `${database.description}: applied ${applied.map(([namespace, versions]) => `${namespace} ${versions.join(", ")}`).join("; ")}`,
      );
    } finally {
      await database.close();
    }
  },
};
