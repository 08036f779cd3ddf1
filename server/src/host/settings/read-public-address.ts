/**
 * How clients reach the host: its public address (`SCIMKIT_PUBLIC_URL`) and the proxies in front
 * of it whose forwarded headers it believes (`SCIMKIT_TRUST_PROXY`, Express's `trust proxy`).
 */
import { isIP } from "node:net";
import { fail, raw, type SettingReader } from "./setting-reader.js";

const TRUST_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** `text` as an origin and path without a trailing slash, when it is an absolute http(s) URL without query, fragment or user. */
export function readPublicUrlText(text: string): string | undefined {
  let parsed: URL | undefined;
  try {
    parsed = new URL(text);
  } catch {
    // URL.canParse is not in every Node.js 20.
    return undefined;
  }
  if (!["http:", "https:"].includes(parsed.protocol) || parsed.search !== "" || parsed.hash !== "" || parsed.username !== "")
    return undefined;
  return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, "");
}

/** `SCIMKIT_PUBLIC_URL` as an origin and path without a trailing slash; undefined when unset or bad. */
export function readPublicUrl(reader: SettingReader): string | undefined {
  const publicText = raw(reader, "SCIMKIT_PUBLIC_URL");
  if (publicText === undefined) return undefined;
  const url = readPublicUrlText(publicText);
  if (url === undefined) {
    fail(
      reader,
      "SCIMKIT_PUBLIC_URL",
      publicText,
      "an absolute http:// or https:// URL without query or fragment, e.g. https://scim.example.com",
    );
  }
  return url;
}

/** `SCIMKIT_TRUST_PROXY` as Express's `trust proxy` takes it; undefined when unset or bad. */
export function readTrustProxy(reader: SettingReader): boolean | number | string | undefined {
  const trustText = raw(reader, "SCIMKIT_TRUST_PROXY");
  if (trustText === undefined) return undefined;
  const expected = 'false, true, a number of proxy hops, or a comma-separated list of addresses and subnets (e.g. "loopback, 10.0.0.0/8")';
  if (trustText === "false") return false;
  if (trustText === "true") return true;
  if (/^\d+$/.test(trustText)) return Number(trustText);
  const entries = trustText.split(",").map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    if (TRUST_NAMES.has(entry)) return true;
    const [address = "", bits, extra] = entry.split("/");
    if (extra !== undefined) return false;
    const family = isIP(address);
    if (family === 0) return false;
    if (bits === undefined) return true;
    return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
  });
  if (valid) return entries.join(",");
  return fail(reader, "SCIMKIT_TRUST_PROXY", trustText, expected);
}
