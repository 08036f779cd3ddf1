import type { HostSettings } from "../host-settings.js";
import { hostSettingDefaults } from "./host-setting-defaults.js";
import type { HostVariable } from "./host-variables.js";
import { fail, raw, type SettingReader, size, whole } from "./setting-reader.js";

/** `SCIMKIT_REQUEST_LOG` and its figures; those the chosen log does not use are reported as ignored. */
export function readRequestLog(reader: SettingReader, onMemory: boolean): HostSettings["requestLog"] {
  const kindText = raw(reader, "SCIMKIT_REQUEST_LOG");
  let kind: HostSettings["requestLog"]["kind"] = onMemory ? "memory" : "database";
  if (kindText === "off" || kindText === "memory" || kindText === "database") kind = kindText;
  else if (kindText !== undefined) {
    fail(
      reader,
      "SCIMKIT_REQUEST_LOG",
      kindText,
      '"database" (in the store\'s database, the default on SQLite and PostgreSQL), "memory" (the newest requests, in this process) or "off"',
    );
  }
  if (kind === "database" && onMemory) {
    fail(reader, "SCIMKIT_REQUEST_LOG", "database", '"memory" or "off" with DATABASE_URL=memory:, which has no database to keep it in');
  }
  const capacity = whole(reader, "SCIMKIT_REQUEST_LOG_CAPACITY", hostSettingDefaults.requestLogCapacity, 1);
  // 0 keeps no bodies at all (method, path, status and the rest still), which `size` refuses.
  const maxBodyBytes =
    raw(reader, "SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES") === "0"
      ? 0
      : size(reader, "SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES", hostSettingDefaults.requestLogMaxBodyBytes);
  const maxAgeDays = whole(reader, "SCIMKIT_REQUEST_LOG_DAYS", hostSettingDefaults.requestLogDays, 1, 3650);
  const maxEntriesPerOrg = whole(reader, "SCIMKIT_REQUEST_LOG_PER_ORGANIZATION", hostSettingDefaults.requestLogPerOrganization, 1);
  const ignored = (names: readonly HostVariable[], why: string): void => {
    for (const name of names) if (raw(reader, name) !== undefined) reader.warnings.push(`${name} is ignored: ${why}`);
  };
  if (kind === "off") {
    ignored(
      [
        "SCIMKIT_REQUEST_LOG_CAPACITY",
        "SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES",
        "SCIMKIT_REQUEST_LOG_DAYS",
        "SCIMKIT_REQUEST_LOG_PER_ORGANIZATION",
      ],
      "SCIMKIT_REQUEST_LOG is off",
    );
  } else if (kind === "memory") {
    ignored(["SCIMKIT_REQUEST_LOG_DAYS", "SCIMKIT_REQUEST_LOG_PER_ORGANIZATION"], "the provisioning log is in memory");
  } else ignored(["SCIMKIT_REQUEST_LOG_CAPACITY"], "the provisioning log is in the database");
  return { kind, capacity, maxBodyBytes, maxAgeDays, maxEntriesPerOrg };
}
