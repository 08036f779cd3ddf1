/**
 * Data residency (spec §2.1, issue 30): the region this host serves (`SCIMKIT_REGION`), the public
 * base URL of every region (`SCIMKIT_REGIONS`), the secret the regions' hosts read each other's
 * directory with and move organizations over (`SCIMKIT_REGION_KEY`), how often they read it
 * (`SCIMKIT_REGION_SYNC_SECONDS`) and the least time a move's step takes (`SCIMKIT_REGION_MOVE_STEP_MS`).
 * Without `SCIMKIT_REGION` the host is the only region and nothing of this applies.
 */
import { REGION_NAME_PATTERN } from "@scimkit/server";
import type { HostSettings } from "../host-settings.js";
import { MIN_SECRET_LENGTH } from "./host-setting-defaults.js";
import { readPublicUrlText } from "./read-public-address.js";
import { fail, raw, type SettingReader, whole } from "./setting-reader.js";

/** A region's name: what `SCIMKIT_REGION` holds and the directory records as an organization's home. */
export const REGION_NAME = new RegExp(REGION_NAME_PATTERN);

/** Seconds between two reads of the other regions' directories, by default. */
export const DEFAULT_REGION_SYNC_SECONDS = 30;

/** The regions' settings; undefined when `SCIMKIT_REGION` is unset (one region) or a value is bad. */
export function readRegions(reader: SettingReader, publicUrl: string | undefined): HostSettings["regions"] {
  const self = raw(reader, "SCIMKIT_REGION");
  const listText = raw(reader, "SCIMKIT_REGIONS");
  const key = raw(reader, "SCIMKIT_REGION_KEY");
  const syncMs = whole(reader, "SCIMKIT_REGION_SYNC_SECONDS", DEFAULT_REGION_SYNC_SECONDS, 1, 3600) * 1000;
  // The least time each step of a move takes: 0 in service; more for rehearsing a move, watching (or killing) it step by step.
  const moveStepMs = whole(reader, "SCIMKIT_REGION_MOVE_STEP_MS", 0, 0, 60_000);
  if (self === undefined) {
    if (listText !== undefined || key !== undefined) {
      reader.errors.push("SCIMKIT_REGIONS and SCIMKIT_REGION_KEY need SCIMKIT_REGION: the region this host serves, e.g. us");
    }
    return undefined;
  }
  if (!REGION_NAME.test(self)) {
    return fail(
      reader,
      "SCIMKIT_REGION",
      self,
      "a region name: a lower-case letter, then up to 31 lower-case letters, digits or hyphens, e.g. us",
    );
  }
  if (listText === undefined) {
    reader.errors.push(
      `SCIMKIT_REGIONS: needed with SCIMKIT_REGION=${self}: every region's public base URL, this one's included, e.g. "us=https://scim.example.com,eu=https://scim.eu.example.com"`,
    );
    return undefined;
  }
  const baseUrls: Record<string, string> = {};
  for (const pair of listText.split(",").map((entry) => entry.trim())) {
    const at = pair.indexOf("=");
    const name = at > 0 ? pair.slice(0, at).trim() : "";
    const url = at > 0 ? readPublicUrlText(pair.slice(at + 1).trim()) : undefined;
    if (!REGION_NAME.test(name) || url === undefined || Object.hasOwn(baseUrls, name)) {
      return fail(
        reader,
        "SCIMKIT_REGIONS",
        listText,
        'region=URL pairs separated by commas, each region once, each URL absolute http(s) without query, e.g. "us=https://scim.example.com,eu=https://scim.eu.example.com"',
      );
    }
    baseUrls[name] = url;
  }
  const own = baseUrls[self];
  if (own === undefined) {
    reader.errors.push(`SCIMKIT_REGIONS does not name this host's region "${self}" (SCIMKIT_REGION): add ${self}=<its public base URL>`);
    return undefined;
  }
  if (publicUrl !== undefined && publicUrl !== own) {
    // The 421 of the other regions sends identity providers to the list's URL: it must be where this host answers.
    reader.errors.push(
      `SCIMKIT_PUBLIC_URL=${publicUrl} differs from region ${self}'s URL in SCIMKIT_REGIONS (${own}): leave SCIMKIT_PUBLIC_URL unset or make them equal`,
    );
    return undefined;
  }
  const peers = Object.keys(baseUrls).filter((name) => name !== self);
  if (peers.length > 0 && (key === undefined || key.length < MIN_SECRET_LENGTH || /\s/.test(key))) {
    // Never echo the key: messages go to logs.
    reader.errors.push(
      `SCIMKIT_REGION_KEY: expected at least ${MIN_SECRET_LENGTH} characters and no whitespace, the same on the hosts of every region: they read each other's directory with it`,
    );
    return undefined;
  }
  return { self, baseUrls, key, syncMs, moveStepMs };
}
