import type { HostSettings } from "../host-settings.js";
import { hostSettingDefaults } from "./host-setting-defaults.js";
import { fail, raw, type SettingReader } from "./setting-reader.js";

/** `SCIMKIT_RATE_LIMIT` and `SCIMKIT_RATE_BURST`: the rate limit, or false when it is off. */
export function readRateLimit(reader: SettingReader): HostSettings["rateLimit"] {
  const rateText = raw(reader, "SCIMKIT_RATE_LIMIT");
  const burstText = raw(reader, "SCIMKIT_RATE_BURST");
  if (rateText === "off") {
    if (burstText !== undefined) reader.warnings.push("SCIMKIT_RATE_BURST is ignored: SCIMKIT_RATE_LIMIT is off");
    return false;
  }
  let requestsPerSecond: number = hostSettingDefaults.requestsPerSecond;
  if (rateText !== undefined) {
    const value = Number(rateText);
    if (/^\d+(\.\d+)?$/.test(rateText) && value > 0) requestsPerSecond = value;
    else fail(reader, "SCIMKIT_RATE_LIMIT", rateText, 'requests per second (a positive number) or "off"');
  }
  // Twice the rate by default: 100/s with bursts of 200, the library's reference figures.
  let burst = Math.max(1, Math.ceil(requestsPerSecond * 2));
  if (burstText !== undefined) {
    const value = Number(burstText);
    if (/^\d+$/.test(burstText) && value >= 1) burst = value;
    else fail(reader, "SCIMKIT_RATE_BURST", burstText, "the most requests at once (a whole number of at least 1)");
  }
  return { requestsPerSecond, burst };
}
