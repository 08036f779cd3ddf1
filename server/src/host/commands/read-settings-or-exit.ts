/**
 * The host's settings, or — when any variable is wrong — every mistake on stderr and exit code 2
 * (a usage error, not a crash: no stack trace), before a store is opened or a port taken.
 */
import { readHostSettings, type HostSettings } from "../host-settings.js";
import { EXIT_CODES } from "./command-error.js";

export function readSettingsOrExit(env: NodeJS.ProcessEnv): HostSettings {
  const result = readHostSettings(env);
  for (const warning of result.warnings) console.error(`scimkit: warning: ${warning}`);
  if (result.ok) return result.settings;
  const count = result.errors.length;
  console.error(`scimkit: ${count === 1 ? "a setting is" : `${count} settings are`} wrong; nothing was started:`);
  for (const error of result.errors) console.error(`  ${error}`);
  console.error("Every setting is described in docs/configuration.md (Host server environment).");
  process.exit(EXIT_CODES.usage);
}
