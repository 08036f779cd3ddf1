/**
 * Where outbound requests a tenant points may go (DESIGN §7, the address rules): never to a
 * forbidden range (`forbidden-address-ranges.ts`) nor a cloud metadata service's name, unless the
 * operator allows the host by name, address or CIDR range — an on-premises receiver. A host name
 * is judged by every address it resolves to, and a connection goes only to addresses judged: the
 * policy's `lookup` resolves, checks and hands the socket exactly those, so a name cannot resolve
 * to a public address when checked and a private one when connected (DNS rebinding).
 */
import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { forbiddenRangeOf, type ForbiddenRange } from "./forbidden-address-ranges.js";

/** Options of `outboundAddressPolicy`. */
export interface OutboundAddressPolicyOptions {
  /**
   * Hosts requests may reach although their addresses are in a forbidden range: host names
   * (exactly, any address they resolve to), IP addresses and CIDR ranges. Default: none.
   *
   * @example ["siem.corp.example", "127.0.0.1", "10.0.0.0/8", "fd12:3456::/32"]
   */
  readonly allowHosts?: readonly string[];
  /**
   * The setting an operator changes to allow a host, named in every refusal so the person refused
   * knows what to ask for. Default `"allowHosts"`; the scimkit host says `SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS`.
   */
  readonly allowSetting?: string;
}

/** Why a host was refused, in words a tenant can act on. */
export class OutboundAddressRefusedError extends Error {
  override readonly name = "OutboundAddressRefusedError";
  /**
   * @param host The host as the URL names it.
   * @param rule The rule it broke: a range's name (`"loopback"`, `"private"`, …) or `"cloud metadata"`.
   */
  constructor(
    message: string,
    readonly host: string,
    readonly rule: string,
  ) {
    super(message);
  }
}

/** The address rules, with the operator's allowances. */
export interface OutboundAddressPolicy {
  /**
   * Resolves when `url`'s host may be reached now; rejects with `OutboundAddressRefusedError` when
   * it is a metadata service's name, a forbidden address, or a name any of whose addresses is
   * one. A name that does not resolve passes: nothing can be reached through it, and every
   * connection checks again (`lookup`).
   */
  check(url: URL): Promise<void>;
  /**
   * Throws `OutboundAddressRefusedError` when `hostname` (a WHATWG URL's `hostname`) is refused
   * without resolving it: a forbidden literal address or a metadata service's name. Literal
   * addresses are connected to without a lookup, so a connection checks them here.
   */
  checkLiteral(hostname: string): void;
  /**
   * The `lookup` of a socket (`http.request`, `net.connect`): resolves the name, refuses as
   * `check` does (an `OutboundAddressRefusedError` as the connection's error), and gives the socket
   * only the addresses it checked.
   */
  readonly lookup: LookupFunction;
}

/** Names of cloud metadata services, refused before they resolve (a resolver may answer them specially). */
const METADATA_NAMES = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"]);

/** A URL hostname as compared: `[::1]` → `::1`, the root's trailing dot dropped. */
function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/** One `allowHosts` entry, normalized as the WHATWG URL parser does hosts (`127.1` is 127.0.0.1, names are lower case). */
function parseAllowed(entry: string, addresses: BlockList, names: Set<string>): void {
  const invalid = () =>
    new Error(`scimkit: allowHosts entry ${JSON.stringify(entry)} is not a host name, an IP address or a CIDR range (e.g. 10.0.0.0/8)`);
  const [host = "", prefix, extra] = entry.trim().split("/");
  if (extra !== undefined) throw invalid();
  let hostname = bareHost(host);
  if (isIP(hostname) !== 6) {
    // A port, path, credentials or an empty name are not a host.
    if (host === "" || /[/?#@:\s]/.test(host)) throw invalid();
    try {
      hostname = bareHost(new URL(`http://${host}/`).hostname);
    } catch {
      throw invalid();
    }
  }
  const family = isIP(hostname);
  const type = family === 4 ? "ipv4" : "ipv6";
  if (prefix !== undefined) {
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
    if (family === 0 || !(bits <= (family === 4 ? 32 : 128))) throw invalid();
    addresses.addSubnet(hostname, bits, type);
  } else if (family !== 0) addresses.addAddress(hostname, type);
  else names.add(hostname);
}

/**
 * The address rules with `options.allowHosts` allowed. Throws when an entry of `allowHosts` is
 * neither a host name, an address nor a CIDR range, naming it.
 *
 * @example
 * const policy = outboundAddressPolicy({ allowHosts: ["10.0.0.0/8"] });
 * await policy.check(new URL("http://127.0.0.1/")); // rejects: a loopback address
 * http.request(url, { lookup: policy.lookup }); // connects only to addresses the rules let through
 */
export function outboundAddressPolicy(options: OutboundAddressPolicyOptions = {}): OutboundAddressPolicy {
  const allowedAddresses = new BlockList();
  const allowedNames = new Set<string>();
  for (const entry of options.allowHosts ?? []) parseAllowed(entry, allowedAddresses, allowedNames);
  const howToAllow = `ask the operator to allow it with ${options.allowSetting ?? "allowHosts"}`;

  const refused = (host: string, what: string, range: ForbiddenRange): OutboundAddressRefusedError =>
    new OutboundAddressRefusedError(`${host} ${what} ${range.described}; ${howToAllow}`, host, range.rule);

  /** The range `address` is refused for, unless the operator allowed it. */
  const rangeOf = (address: string): ForbiddenRange | undefined => {
    const range = forbiddenRangeOf(address);
    if (range === undefined) return undefined;
    const bare = address.replace(/%.*$/, "");
    return allowedAddresses.check(bare, isIP(bare) === 4 ? "ipv4" : "ipv6") ? undefined : range;
  };

  const checkLiteral = (hostname: string): void => {
    const host = bareHost(hostname);
    if (allowedNames.has(host)) return;
    if (METADATA_NAMES.has(host)) throw refused(host, "is", { rule: "cloud metadata", described: "the name of a cloud metadata service" });
    if (isIP(host) === 0) return;
    const range = rangeOf(host);
    if (range !== undefined) throw refused(host, "is", range);
  };

  /**
   * Every address `host` resolves to, or a refusal. The addresses themselves stay out of the
   * message: a tenant learns which rule its name broke, not what this network's DNS answers.
   */
  const resolve = async (host: string): Promise<LookupAddress[]> => {
    const addresses = await dnsLookup(host, { all: true });
    if (allowedNames.has(host)) return addresses;
    for (const { address } of addresses) {
      const range = rangeOf(address);
      if (range !== undefined) throw refused(host, "resolves to", range);
    }
    return addresses;
  };

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const host = bareHost(hostname);
    const family =
      lookupOptions.family === 4 || lookupOptions.family === "IPv4"
        ? 4
        : lookupOptions.family === 6 || lookupOptions.family === "IPv6"
          ? 6
          : 0;
    Promise.resolve()
      .then(() => {
        checkLiteral(host);
        return resolve(host);
      })
      .then(
        (all) => {
          const usable = family === 0 ? all : all.filter((candidate) => candidate.family === family);
          const [first] = usable;
          if (first === undefined) {
            const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${host}`);
            error.code = "ENOTFOUND";
            callback(error, "", 0);
          } else if (lookupOptions.all) callback(null, usable);
          else callback(null, first.address, first.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, "", 0),
      );
  };

  return {
    checkLiteral,
    lookup,
    async check(url) {
      const host = bareHost(url.hostname);
      checkLiteral(host);
      if (isIP(host) !== 0 || allowedNames.has(host)) return;
      try {
        await resolve(host);
      } catch (error) {
        if (error instanceof OutboundAddressRefusedError) throw error;
        // Not resolvable now (ENOTFOUND, a resolver down): nothing to refuse; each connection looks again.
      }
    },
  };
}
