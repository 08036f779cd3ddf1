import { outboundAddressPolicy } from "scimkit/events";
import type { HostSettings } from "../host-settings.js";
import { hostSettingDefaults } from "./host-setting-defaults.js";
import { hostVariables } from "./host-variables.js";
import { fail, raw, type SettingReader, whole } from "./setting-reader.js";

/** `SCIMKIT_EVENTS` and its figures; each figure is reported as ignored when the events are off. */
export function readEvents(reader: SettingReader): HostSettings["events"] {
  const eventsText = raw(reader, "SCIMKIT_EVENTS")?.toLowerCase();
  let eventsEnabled: boolean = hostSettingDefaults.events;
  if (eventsText === "on" || eventsText === "off") eventsEnabled = eventsText === "on";
  else if (eventsText !== undefined)
    fail(reader, "SCIMKIT_EVENTS", eventsText, '"on" (record events and push them to registered receivers) or "off"');
  const allowText = raw(reader, "SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS");
  const receiverAllowHosts = allowText === undefined ? [] : allowText.split(",").map((entry) => entry.trim());
  try {
    outboundAddressPolicy({ allowHosts: receiverAllowHosts });
  } catch (error) {
    fail(
      reader,
      "SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS",
      allowText ?? "",
      `a comma list of host names, IP addresses and CIDR ranges, e.g. 127.0.0.1,10.0.0.0/8,siem.corp.example (${error instanceof Error ? error.message.replace(/^scimkit: allowHosts /, "") : String(error)})`,
    );
  }
  const events = {
    enabled: eventsEnabled,
    leaseMs: whole(reader, "SCIMKIT_EVENT_LEASE_SECONDS", hostSettingDefaults.eventLeaseSeconds, 1, 3600) * 1000,
    retryMaxMs: whole(reader, "SCIMKIT_EVENT_RETRY_MAX_SECONDS", hostSettingDefaults.eventRetryMaxSeconds, 1, 86_400) * 1000,
    backlogMaxEvents: whole(reader, "SCIMKIT_EVENT_BACKLOG_EVENTS", hostSettingDefaults.eventBacklogEvents, 1, 10_000_000),
    backlogMaxAgeMs: whole(reader, "SCIMKIT_EVENT_BACKLOG_DAYS", hostSettingDefaults.eventBacklogDays, 1, 365) * 86_400_000,
    maxReceiversPerOrganization: whole(
      reader,
      "SCIMKIT_EVENT_RECEIVERS_PER_ORGANIZATION",
      hostSettingDefaults.eventReceiversPerOrganization,
      1,
      1000,
    ),
    receiverAllowHosts,
  };
  if (!eventsEnabled) {
    // Every SCIMKIT_EVENT_* figure: each means nothing without the events.
    for (const name of hostVariables.filter((variable) => variable.startsWith("SCIMKIT_EVENT_"))) {
      if (raw(reader, name) !== undefined) reader.warnings.push(`${name} is ignored: SCIMKIT_EVENTS is off`);
    }
  }
  return events;
}
